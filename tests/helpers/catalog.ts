import type { PGlite } from "@electric-sql/pglite";

/**
 * A description of a database that two databases share when they hold the same things, whatever
 * their history: every object outside PostgreSQL's own schemas as PostgreSQL itself prints it
 * (pg_get_*def, format_type), the database's and roles' settings, the number of rows of each system
 * catalog (so that nothing extra hides anywhere, such as an object in a schema left out here), and
 * every row of every table.
 *
 * What it leaves out, and why: object identifiers, file nodes, transaction ids, the cluster's system
 * identifier and the WAL position differ between any two initdbs; and a row's timestamps say when it
 * was written (a seeded role, pg-boss's bookkeeping), so each is described only as present or null.
 */
export async function describeDatabase(pglite: PGlite): Promise<Record<string, unknown[]>> {
  const rows = async (query: string) => (await pglite.query<Record<string, unknown>>(query)).rows;
  const ours = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'`;
  const description: Record<string, unknown[]> = {
    databases: await rows(`
      SELECT datname, pg_encoding_to_char(encoding) AS encoding, datlocprovider, datcollate, datctype,
             datistemplate, datallowconn, datconnlimit, datacl::text
      FROM pg_database ORDER BY datname`),
    roles: await rows(`
      SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication,
             rolbypassrls, rolconnlimit, rolconfig::text
      FROM pg_roles ORDER BY rolname`),
    // What postgresql.conf and postgresql.auto.conf set, and ALTER DATABASE/ROLE … SET.
    settings: await rows(`
      SELECT name, setting FROM pg_settings WHERE source IN ('configuration file', 'database', 'user')
      ORDER BY name`),
    roleSettings: await rows(
      `SELECT setdatabase <> 0 AS per_database, setconfig::text FROM pg_db_role_setting ORDER BY 2`,
    ),
    extensions: await rows(`SELECT extname, extversion FROM pg_extension ORDER BY extname`),
    schemas: await rows(`
      SELECT n.nspname, pg_get_userbyid(n.nspowner) AS owner, n.nspacl::text
      FROM pg_namespace n WHERE ${ours} ORDER BY 1`),
    relations: await rows(`
      SELECT n.nspname, c.relname, c.relkind, c.relpersistence, c.relispartition, c.relrowsecurity,
             pg_get_userbyid(c.relowner) AS owner, c.relacl::text, c.reloptions::text,
             obj_description(c.oid, 'pg_class') AS comment,
             pg_get_partkeydef(c.oid) AS partition_key, pg_get_expr(c.relpartbound, c.oid) AS partition_bound
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${ours} ORDER BY 1, 2`),
    columns: await rows(`
      SELECT n.nspname, c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) AS type,
             a.attnotnull, pg_get_expr(d.adbin, d.adrelid) AS default, a.attidentity, a.attgenerated,
             co.collname, col_description(c.oid, a.attnum) AS comment
      FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 0
      WHERE a.attnum > 0 AND NOT a.attisdropped AND ${ours} ORDER BY 1, 2, 3`),
    constraints: await rows(`
      SELECT n.nspname, c.conrelid::regclass::text AS relation, c.conname, c.contype,
             pg_get_constraintdef(c.oid) AS definition, c.condeferrable, c.condeferred
      FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE ${ours} ORDER BY 1, 2, 3`),
    indexes: await rows(`
      SELECT n.nspname, i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition,
             i.indisunique, i.indisprimary, i.indisvalid, i.indisclustered
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE ${ours} ORDER BY 1, 2`),
    sequences: await rows(`
      SELECT schemaname, sequencename, data_type::text, start_value, min_value, max_value, increment_by,
             cycle, cache_size, last_value
      FROM pg_sequences ORDER BY 1, 2`),
    functions: await rows(`
      SELECT n.nspname, p.proname, pg_get_function_identity_arguments(p.oid) AS arguments, p.prokind,
             CASE WHEN p.prokind IN ('f', 'p') THEN pg_get_functiondef(p.oid) END AS definition,
             pg_get_userbyid(p.proowner) AS owner, p.proacl::text
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${ours} ORDER BY 1, 2, 3`),
    triggers: await rows(`
      SELECT t.tgrelid::regclass::text AS relation, t.tgname, pg_get_triggerdef(t.oid) AS definition, t.tgenabled
      FROM pg_trigger t WHERE NOT t.tgisinternal ORDER BY 1, 2`),
    views: await rows(`
      SELECT n.nspname, c.relname, pg_get_viewdef(c.oid) AS definition
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('v', 'm') AND ${ours} ORDER BY 1, 2`),
    types: await rows(`
      SELECT n.nspname, t.typname, t.typtype, format_type(t.typbasetype, t.typtypmod) AS base, t.typnotnull,
             t.typdefault, (SELECT array_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid)::text AS labels
      FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE t.typtype IN ('c', 'd', 'e', 'm', 'r') AND ${ours}
        AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = t.typrelid AND c.relkind <> 'c')
      ORDER BY 1, 2`),
    policies: await rows(
      `SELECT schemaname, tablename, policyname, permissive, roles::text, cmd, qual, with_check FROM pg_policies ORDER BY 1, 2, 3`,
    ),
    rules: await rows(
      `SELECT schemaname, tablename, rulename, definition FROM pg_rules WHERE schemaname NOT IN ('pg_catalog') ORDER BY 1, 2, 3`,
    ),
  };

  const catalogs = await rows(`
    SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'pg_catalog' AND c.relkind = 'r' ORDER BY 1`);
  description.catalogRows = [];
  for (const { relname } of catalogs) {
    // Planner statistics come and go with ANALYZE; neither side has run it, but they say nothing about what is there.
    if (relname === "pg_statistic") continue;
    const [count] = await rows(`SELECT count(*)::int AS n FROM pg_catalog."${relname}"`);
    description.catalogRows.push({ catalog: relname, rows: count?.n });
  }

  const tables = await rows(`
    SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p') AND ${ours} ORDER BY 1, 2`);
  description.tableRows = [];
  for (const { nspname, relname } of tables) {
    const table = `"${nspname}"."${relname}"`;
    const timestamps = await rows(`
      SELECT attname FROM pg_attribute
      WHERE attrelid = '${table}'::regclass AND attnum > 0 AND NOT attisdropped
        AND atttypid IN ('timestamp'::regtype, 'timestamptz'::regtype, 'date'::regtype)`);
    // Each row as JSON, its timestamps replaced by whether they are set; in a stable order.
    const masked = timestamps.reduce(
      (expression, { attname }) =>
        `jsonb_set(${expression}, '{${attname}}', to_jsonb(CASE WHEN t."${attname}" IS NULL THEN 'null' ELSE 'a time' END))`,
      "to_jsonb(t)",
    );
    const content = await rows(`SELECT ${masked} AS row FROM ${table} t ORDER BY 1`);
    description.tableRows.push({ table, rows: content.map((r) => r.row) });
  }
  return description;
}
