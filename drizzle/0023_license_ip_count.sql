ALTER TABLE "licenses" ADD COLUMN "ip_count" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- licenses.ip_count is the number of the license's license_ips rows, kept by this trigger: every
-- insert or delete of an address updates the license's row in the same transaction, so concurrent
-- changes queue on that row's lock and the count stays exact (a validation reads it with the license
-- instead of counting the addresses). A license deleted with its addresses (ON DELETE CASCADE) has
-- no row left to update.
CREATE OR REPLACE FUNCTION depot_license_ip_count() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE licenses SET ip_count = ip_count + 1 WHERE id = NEW.license_id;
  ELSE
    UPDATE licenses SET ip_count = ip_count - 1 WHERE id = OLD.license_id;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER license_ips_count AFTER INSERT OR DELETE ON license_ips
FOR EACH ROW EXECUTE FUNCTION depot_license_ip_count();
--> statement-breakpoint
UPDATE licenses SET ip_count = counted.n
FROM (SELECT license_id, count(*)::int AS n FROM license_ips GROUP BY license_id) AS counted
WHERE licenses.id = counted.license_id;
