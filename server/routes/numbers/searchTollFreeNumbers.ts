// GET /v1/available-phone-numbers/{country}/TollFree: toll-free numbers nobody holds.
import type { Handler } from '../../http/operation.js';
import { pageSize } from '../../store/pagination.js';
import { searchFilters } from './search-query.js';

export const searchTollFreeNumbers: Handler<'searchTollFreeNumbers'> = async ({ params, query, services }) => ({
  status: 200,
  body: {
    data: await services.numbers.search(params.country, 'TollFree', searchFilters(query), pageSize(query.page_size)),
  },
});
