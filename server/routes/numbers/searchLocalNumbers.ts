// GET /v1/available-phone-numbers/{country}/Local: geographic (and where needed mobile) numbers nobody holds.
import type { Handler } from '../../http/operation.js';
import { pageSize } from '../../store/pagination.js';
import { searchFilters } from './search-query.js';

export const searchLocalNumbers: Handler<'searchLocalNumbers'> = async ({ params, query, services }) => ({
  status: 200,
  body: {
    data: await services.numbers.search(params.country, 'Local', searchFilters(query), pageSize(query.page_size)),
  },
});
