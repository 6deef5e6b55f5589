// PostgreSQL's dialect for Kysely, with an introspector that reads only the schema the connection works in.
import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  PostgresAdapter,
  PostgresDialect,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  type Kysely,
  type TableMetadata,
} from 'kysely';

interface ColumnRow {
  table: string;
  schema: string;
  is_view: boolean;
  column: string;
  type: string;
  type_schema: string;
  nullable: boolean;
  has_default: boolean;
  auto_incrementing: boolean;
  comment: string | null;
}

/**
 * Kysely's PostgreSQL introspector reads the columns of every schema of the database, and its Migrator asks it
 * whether the migration tables exist. That failed when another schema's table went meanwhile (another
 * application's, or another test server's: `column "date_created" of relation "proxy_sessions" does not exist`,
 * raised by its pg_get_serial_sequence call), and without a schema of our own the Migrator would take another
 * schema's migration table for ours. This one reads the schemas of the search path only (the server's schema; else
 * `"$user"` and `public`, where unqualified names resolve), in one catalog query that raises nothing when other
 * schemas change.
 */
class OwnSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas() {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.db);
    return rows;
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select c.relname as table, n.nspname as schema, c.relkind = 'v' as is_view, a.attname as column,
             t.typname as type, tn.nspname as type_schema, not a.attnotnull as nullable, a.atthasdef as has_default,
             a.attidentity <> '' or coalesce(pg_get_expr(d.adbin, d.adrelid) like 'nextval(%', false)
               as auto_incrementing,
             col_description(a.attrelid, a.attnum) as comment
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      join pg_catalog.pg_type t on t.oid = a.atttypid
      join pg_catalog.pg_namespace tn on tn.oid = t.typnamespace
      left join pg_catalog.pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
      where n.nspname = any (current_schemas(false)) and c.relkind in ('r', 'v', 'p')
      order by n.nspname, c.relname, a.attnum`.execute(this.db);
    const internal = new Set([DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE]);
    const tables = new Map<string, TableMetadata>();
    for (const row of rows) {
      if (!options.withInternalKyselyTables && internal.has(row.table)) continue;
      const key = `${row.schema}.${row.table}`;
      let table = tables.get(key);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.is_view, columns: [] };
        tables.set(key, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: row.nullable,
        hasDefaultValue: row.has_default,
        isAutoIncrementing: row.auto_incrementing,
        ...(row.comment === null ? {} : { comment: row.comment }),
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions) {
    return { tables: await this.getTables(options) };
  }
}

/**
 * Kysely's PostgreSQL adapter takes one advisory lock for the whole database while it migrates, whatever the schema:
 * the servers of different schemas in one database (each test server, each tenant of a shared database) waited for
 * each other's migrations, one at a time (a CI run's instance was not ready after 60 s). This one locks the schema
 * the connection works in (`current_schema()`: the server's, else the first of the search path), so the instances of
 * one schema still migrate one at a time and other schemas do not wait. Held to the end of the migrations' session
 * (Kysely releases it), with Kysely's timeout of an hour.
 */
class OwnSchemaAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<any>): Promise<void> {
    await sql`select set_config('lock_timeout', '3600000', true), pg_advisory_lock(${MIGRATION_LOCK})`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<any>): Promise<void> {
    await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(db);
  }
}

/** The key of a schema's migration lock (test/store/migrations.test.ts takes it by this text). */
const MIGRATION_LOCK = sql<bigint>`hashtextextended('telephony-api migrations ' || coalesce(current_schema(), ''), 0)`;

export class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }

  override createAdapter(): PostgresAdapter {
    return new OwnSchemaAdapter();
  }
}
