// A customer's Home: the licenses they hold with the seats in use, and the newest version of each
// product they may download. Read from their own lists (GET /api/licenses, GET /api/downloads).

import { formatCount } from "../charts/numbers.ts";
import { ScrollBox } from "../charts/scroll-box.tsx";
import { formatDate } from "../dates.ts";
import { listDownloads } from "../downloads/api.ts";
import { allItems } from "../listing.ts";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { NavLink } from "../nav.tsx";
import { DOWNLOADS_PATH, LICENSES_PATH } from "../paths.ts";
import type { Download, OwnLicense } from "../wire.ts";

const statusText: Record<string, string> = { active: "Active", expired: "Expired", revoked: "Revoked" };

/** Seats in use: the license's machines alive now, of its limit when it has one. */
function seats(license: OwnLicense) {
  const used = license.machines.filter((machine) => machine.alive).length;
  return license.max_machines === null
    ? `${formatCount(used)} (no limit)`
    : `${formatCount(used)} of ${formatCount(license.max_machines)}`;
}

async function loadCustomer() {
  const [licenses, downloads] = await Promise.all([allItems<OwnLicense>("/api/licenses"), listDownloads()]);
  return { licenses, downloads };
}

function Newest({ downloads }: { downloads: Download[] }) {
  const rows = downloads.flatMap((download) => [
    { key: `p${download.product.id}`, name: download.product.name, latest: download.latest },
    ...download.benefits.map((benefit) => ({
      key: `b${benefit.id}`,
      name: `${download.product.name}: ${benefit.name}`,
      latest: benefit.latest,
    })),
  ]);
  return (
    <section aria-labelledby="newest-heading">
      <h2 id="newest-heading">Newest versions for you</h2>
      {rows.length === 0 ? (
        <p class="empty">Nothing to download yet.</p>
      ) : (
        <ScrollBox label="Newest versions for you">
          <table>
            <thead>
              <tr>
                <th scope="col">Product</th>
                <th scope="col">Newest version</th>
                <th scope="col">Published</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.key}>
                  <th scope="row">
                    <bdi>{row.name}</bdi>
                  </th>
                  <td>{row.latest ? <bdi>{row.latest.version_number}</bdi> : "Nothing published yet"}</td>
                  <td>{row.latest?.published_at ? formatDate(row.latest.published_at) : "–"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      <p>
        <NavLink href={DOWNLOADS_PATH}>Go to your downloads</NavLink>
      </p>
    </section>
  );
}

export function CustomerOverview() {
  const { loading } = useLoad(loadCustomer, "Your licenses could not be loaded.");
  return (
    <Loaded loading={loading} label="Loading your licenses…">
      {({ licenses, downloads }) => {
        const active = licenses.filter((license) => license.status === "active");
        const inUse = licenses.reduce(
          (total, license) => total + license.machines.filter((machine) => machine.alive).length,
          0,
        );
        return (
          <>
            <dl class="stat-tiles">
              <div>
                <dt>Licenses</dt>
                <dd>{formatCount(licenses.length)}</dd>
              </div>
              <div>
                <dt>Active</dt>
                <dd>{formatCount(active.length)}</dd>
              </div>
              <div>
                <dt>Seats in use</dt>
                <dd>{formatCount(inUse)}</dd>
              </div>
            </dl>
            <section aria-labelledby="licenses-heading">
              <h2 id="licenses-heading">Your licenses</h2>
              {licenses.length === 0 ? (
                <p class="empty">You hold no licenses yet.</p>
              ) : (
                <ScrollBox label="Your licenses">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Product</th>
                        <th scope="col">Status</th>
                        <th scope="col">Seats in use</th>
                        <th scope="col">Expires</th>
                      </tr>
                    </thead>
                    <tbody>
                      {licenses.map((license) => (
                        <tr key={license.id}>
                          <th scope="row">
                            <bdi>{license.product.name}</bdi>
                          </th>
                          <td>{statusText[license.status] ?? license.status}</td>
                          <td>{seats(license)}</td>
                          <td>{license.expires ? formatDate(license.expires) : "Never"}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </ScrollBox>
              )}
              <p>
                <NavLink href={LICENSES_PATH}>Manage your licenses and machines</NavLink>
              </p>
            </section>
            <Newest downloads={downloads} />
          </>
        );
      }}
    </Loaded>
  );
}
