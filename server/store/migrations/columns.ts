// Column shapes that differ between the two engines.
import type { CreateTableBuilder } from 'kysely';
import type { Dialect } from '../db.js';

/** An auto-incrementing integer primary key named `id`. */
export function autoId<T extends string>(table: CreateTableBuilder<T, never>, dialect: Dialect) {
  return dialect === 'postgres'
    ? table.addColumn('id', 'bigserial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}
