-- A version name's semver precedence as text that sorts byte by byte (COLLATE "C") in the order
-- src/features/versions/semver.ts compareSemver gives: each number as its digit count (3 digits)
-- then its digits; then 1 for a release, or 0 and the pre-release identifiers, each a numeric one as
-- 0 and its counted digits, an alphanumeric one as 1 and itself, separated by a space (which sorts
-- before any identifier character, so a shorter list of equal identifiers comes first). Build
-- metadata counts for nothing. NULL for a name that is not semver (a feed never offers it).
CREATE OR REPLACE FUNCTION depot_semver_key(name text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT AS $$
  SELECT CASE WHEN m IS NULL THEN NULL ELSE
    lpad(length(m[1])::text, 3, '0') || m[1] || lpad(length(m[2])::text, 3, '0') || m[2]
      || lpad(length(m[3])::text, 3, '0') || m[3]
      || CASE WHEN m[4] IS NULL THEN '1' ELSE '0' || array_to_string(ARRAY(
           SELECT CASE WHEN part ~ '^[0-9]+$' THEN '0' || lpad(length(part)::text, 3, '0') || part
                       ELSE '1' || part END
           FROM unnest(string_to_array(m[4], '.')) WITH ORDINALITY AS p(part, n) ORDER BY n), ' ')
         END
  END
  FROM (SELECT regexp_match(regexp_replace(name, '^\s+|\s+$', '', 'g'),
    '^[vV]?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-((?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$') AS m) AS parsed
$$;
--> statement-breakpoint
ALTER TABLE "versions" ADD COLUMN "semver_key" text GENERATED ALWAYS AS (depot_semver_key(version_number)) STORED;