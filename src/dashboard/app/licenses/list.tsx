// The product's licenses: the key (with Copy), the owner, status, expiry and addresses in use, with
// "Machines" to see and free its machines (and activate one offline), "IPs" to open the addresses,
// "Settings" to change the license's policy, limits and expiry, and "Revoke" (after a confirm) per license.
import { useState } from "preact/hooks";
import { CopyField } from "../copy-field.tsx";
import { formatDate } from "../dates.ts";
import type { More } from "../listing.ts";
import { ShowMore } from "../show-more.tsx";
import type { License, Policy } from "../wire.ts";
import { EditLicense } from "./edit.tsx";
import { LicenseIps } from "./ips.tsx";
import { LicenseMachines } from "./machines.tsx";

const STATUS_LABELS: Record<License["status"], string> = {
  active: "Active",
  expired: "Expired",
  revoked: "Revoked",
};

type Panel = "machines" | "ips" | "settings";

interface Props {
  productId: string;
  licenses: License[];
  /** The product's policies: each license's by name, and the ones its Settings may move it to. */
  policies: Policy[];
  more: More;
  search: string;
  revoking: string | null;
  onRevoke: (license: License) => void;
  onChanged: () => void;
}

export function LicenseList({
  productId,
  licenses,
  policies,
  more,
  search,
  revoking,
  onRevoke,
  onChanged,
}: Props) {
  /** One panel open at a time: a license's machines, its addresses or its settings. */
  const [open, setOpen] = useState<{ id: string; panel: Panel } | null>(null);
  const toggle = (id: string, panel: Panel) =>
    setOpen(open?.id === id && open.panel === panel ? null : { id, panel });
  const isOpen = (id: string, panel: Panel) => open?.id === id && open.panel === panel;
  if (licenses.length === 0) {
    return search ? (
      <p class="empty">
        No license matches “<bdi>{search}</bdi>”. Search by the start of a key, or part of an e-mail or name.
      </p>
    ) : (
      <p class="empty">No licenses yet. Create one with New license and the customer's e-mail.</p>
    );
  }
  return (
    <>
      <ul class="items">
        {licenses.map((license) => {
          const machinesId = `license-machines-${license.id}`;
          const ipsId = `license-ips-${license.id}`;
          const settingsId = `license-settings-${license.id}`;
          const describedBy = `license-owner-${license.id}`;
          return (
            <li key={license.id} class="item">
              <CopyField id={`license-key-${license.id}`} label="Key" value={license.key} />
              <dl class="item-facts">
                <dt>Owner</dt>
                <dd id={describedBy}>
                  <bdi>{license.owner.name}</bdi> <bdi class="hint">{license.owner.email}</bdi>
                </dd>
                {license.policy_id !== null && (
                  <>
                    <dt>Policy</dt>
                    <dd>
                      <bdi>
                        {policies.find((policy) => policy.id === license.policy_id)?.name ??
                          `#${license.policy_id}`}
                      </bdi>
                    </dd>
                  </>
                )}
                <dt>Status</dt>
                <dd>
                  <span class={`status status-${license.status}`}>{STATUS_LABELS[license.status]}</span>
                </dd>
                <dt>Expires</dt>
                <dd>
                  {license.expires ? (
                    <time dateTime={license.expires}>{formatDate(license.expires)}</time>
                  ) : (
                    "Never"
                  )}
                </dd>
                <dt>IPs</dt>
                <dd>
                  {license.max_ips === null
                    ? `${license.ip_count} (no limit)`
                    : `${license.ip_count}/${license.max_ips}`}
                </dd>
                <dt>Seats</dt>
                <dd>
                  {license.max_machines === null
                    ? `${license.machine_count} (uncounted)`
                    : `${license.machine_count}/${license.max_machines}`}
                </dd>
              </dl>
              <div class="actions">
                <button
                  type="button"
                  class="secondary"
                  aria-expanded={isOpen(license.id, "machines")}
                  aria-controls={machinesId}
                  aria-describedby={describedBy}
                  onClick={() => toggle(license.id, "machines")}
                >
                  Machines
                </button>
                <button
                  type="button"
                  class="secondary"
                  aria-expanded={isOpen(license.id, "ips")}
                  aria-controls={ipsId}
                  aria-describedby={describedBy}
                  onClick={() => toggle(license.id, "ips")}
                >
                  IPs
                </button>
                {!license.revoked && (
                  <button
                    type="button"
                    class="secondary"
                    aria-expanded={isOpen(license.id, "settings")}
                    aria-controls={settingsId}
                    aria-describedby={describedBy}
                    onClick={() => toggle(license.id, "settings")}
                  >
                    Settings
                  </button>
                )}
                {!license.revoked && (
                  <button
                    type="button"
                    class="danger"
                    aria-describedby={describedBy}
                    onClick={() => onRevoke(license)}
                    disabled={revoking === license.id}
                  >
                    {revoking === license.id ? "Revoking…" : "Revoke"}
                  </button>
                )}
              </div>
              {isOpen(license.id, "machines") && (
                <LicenseMachines
                  id={machinesId}
                  productId={productId}
                  license={license}
                  onChanged={onChanged}
                />
              )}
              {isOpen(license.id, "ips") && (
                <LicenseIps id={ipsId} productId={productId} license={license} onChanged={onChanged} />
              )}
              {isOpen(license.id, "settings") && (
                <EditLicense
                  id={settingsId}
                  productId={productId}
                  license={license}
                  policies={policies}
                  onSaved={() => {
                    setOpen(null);
                    onChanged();
                  }}
                />
              )}
            </li>
          );
        })}
      </ul>
      <ShowMore more={more} noun="licenses" />
    </>
  );
}
