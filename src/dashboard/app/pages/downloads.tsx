import { listDownloads } from "../downloads/api.ts";
import { OlderVersions } from "../downloads/older.tsx";
import { type HeadingLevel, VersionEntry } from "../downloads/version.tsx";
import { Layout } from "../layout.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { NavLink } from "../nav.tsx";
import type { PageProps } from "../pages.ts";
import { LICENSES_PATH } from "../paths.ts";
import type { Version } from "../wire.ts";

/** The newest version of one release line (a product's own, or a benefit's), and its older ones. */
function ReleaseLine(props: {
  productId: number;
  benefitId: number | null;
  latest: Version | null;
  of: string;
  level: HeadingLevel;
}) {
  if (!props.latest)
    return <p class="empty">Nothing published yet: it appears here with its first version.</p>;
  return (
    <>
      <VersionEntry version={props.latest} level={props.level} />
      <OlderVersions
        productId={props.productId}
        benefitId={props.benefitId}
        latest={props.latest}
        of={props.of}
        level={props.level}
      />
    </>
  );
}

/** The latest release of every product the user holds a live license for, and of their benefits. */
export function Downloads({ user, onSignedOut }: PageProps) {
  const { loading } = useLoad(listDownloads, "The downloads could not be loaded.");
  return (
    <Layout user={user} title="Downloads" onSignedOut={onSignedOut}>
      <section aria-label="Your downloads" aria-busy={loading.state === "loading"}>
        <Loaded loading={loading} label="Loading downloads…">
          {(downloads) =>
            downloads.length === 0 ? (
              <p class="empty">
                Nothing to download yet: the products you hold a valid license for appear here. See your{" "}
                <NavLink href={LICENSES_PATH}>licenses</NavLink>.
              </p>
            ) : (
              downloads.map(({ product, latest, benefits }) => (
                <section key={product.id} class="panel" aria-labelledby={`product-${product.id}-heading`}>
                  <h2 id={`product-${product.id}-heading`} dir="auto">
                    {product.name}
                  </h2>
                  <ReleaseLine
                    productId={product.id}
                    benefitId={null}
                    latest={latest}
                    of={product.name}
                    level={3}
                  />
                  {benefits.map((benefit) => (
                    <section
                      key={benefit.id}
                      class="benefit"
                      aria-labelledby={`benefit-${benefit.id}-heading`}
                    >
                      <h3 id={`benefit-${benefit.id}-heading`} dir="auto">
                        {benefit.name}
                      </h3>
                      <ReleaseLine
                        productId={product.id}
                        benefitId={benefit.id}
                        latest={benefit.latest}
                        of={`${product.name}: ${benefit.name}`}
                        level={4}
                      />
                    </section>
                  ))}
                </section>
              ))
            )
          }
        </Loaded>
      </section>
    </Layout>
  );
}
