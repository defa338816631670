import { Layout } from "../layout.tsx";
import { useListing } from "../listing.ts";
import { Loaded } from "../loaded.tsx";
import { listLicenses } from "../my-licenses/api.ts";
import { LicenseCard } from "../my-licenses/license-card.tsx";
import { NavLink } from "../nav.tsx";
import type { PageProps } from "../pages.ts";
import { DOWNLOADS_PATH } from "../paths.ts";
import { ShowMore } from "../show-more.tsx";

/** The signed-in user's licenses, newest first (any role: a license is anyone's). */
export function MyLicenses({ user, onSignedOut }: PageProps) {
  const { loading, reload, more } = useListing(listLicenses, "The licenses could not be loaded.");
  return (
    <Layout user={user} title="Licenses" onSignedOut={onSignedOut}>
      <p>
        Your license keys, and the addresses each is used from. Your products' files are on{" "}
        <NavLink href={DOWNLOADS_PATH}>Downloads</NavLink>.
      </p>
      <section aria-label="Your licenses" aria-busy={loading.state === "loading"}>
        <Loaded loading={loading} label="Loading licenses…">
          {({ items: licenses }) =>
            licenses.length === 0 ? (
              <p class="empty">
                You hold no licenses yet. A license appears here once you buy a product, or a vendor issues
                you one.
              </p>
            ) : (
              <>
                <ul class="licenses">
                  {licenses.map((license) => (
                    <LicenseCard key={license.id} license={license} onChanged={reload} />
                  ))}
                </ul>
                <ShowMore more={more} noun="licenses" />
              </>
            )
          }
        </Loaded>
      </section>
    </Layout>
  );
}
