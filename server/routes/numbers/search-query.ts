// The search query of both inventory searches, as the domain's filters.
import type { QueryParams } from '../../http/operation.js';
import type { SearchFilters } from '../../numbers/inventory.js';

export function searchFilters(query: QueryParams<'searchLocalNumbers'>): SearchFilters {
  return {
    areaCode: query.area_code,
    contains: query.contains,
    smsEnabled: query.sms_enabled,
    mmsEnabled: query.mms_enabled,
    voiceEnabled: query.voice_enabled,
    inRegion: query.in_region,
    inLocality: query.in_locality,
    excludeAddressRequired: query.exclude_address_required,
  };
}
