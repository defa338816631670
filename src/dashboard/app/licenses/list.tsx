// The product's licenses as a table: the key (with Copy), the owner, policy, status, seats, addresses in
// use and expiry, sortable by the owner, status, seats, IPs and expiry (the rows shown). Each row's
// actions: "Machines" to see and free its machines (and activate one offline), "IPs" to open the
// addresses, "Settings" to change the license's policy, limits and expiry, and "Revoke" (after a
// confirm). The panel an action opens shows in a row right under its license, one at a time.
import { useState } from "preact/hooks";
import { CopyField } from "../copy-field.tsx";
import { formatDate } from "../dates.ts";
import type { More } from "../listing.ts";
import { ShowMore } from "../show-more.tsx";
import { type Column, Table } from "../table.tsx";
import type { License, Policy } from "../wire.ts";
import { EditLicense } from "./edit.tsx";
import { LicenseIps } from "./ips.tsx";
import { LicenseMachines } from "./machines.tsx";

const STATUS_LABELS: Record<License["status"], string> = {
  active: "Active",
  expired: "Expired",
  revoked: "Revoked",
};

/** "No limit" sorts above any limit. */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

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

/** The ids that tie a row's buttons to the panel they open and to the owner they act on. */
const ids = (license: License) => ({
  machines: `license-machines-${license.id}`,
  ips: `license-ips-${license.id}`,
  settings: `license-settings-${license.id}`,
  owner: `license-owner-${license.id}`,
});

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
  /** The row's button that opens (or closes) one of its panels. */
  const panelButton = (license: License, panel: Panel, label: string) => {
    const id = ids(license);
    return (
      <button
        type="button"
        class="secondary"
        aria-expanded={isOpen(license.id, panel)}
        aria-controls={id[panel]}
        aria-describedby={id.owner}
        onClick={() => toggle(license.id, panel)}
      >
        {label}
      </button>
    );
  };
  if (licenses.length === 0) {
    return search ? (
      <p class="empty">
        No license matches “<bdi>{search}</bdi>”. Search by the start of a key, or part of an e-mail or name.
      </p>
    ) : (
      <p class="empty">No licenses yet. Create one with New license and the customer's e-mail.</p>
    );
  }

  const columns: Column<License>[] = [
    {
      label: "Key",
      cell: (license) => (
        <div class="license-key">
          <CopyField
            id={`license-key-${license.id}`}
            label={<span class="visually-hidden">Key</span>}
            value={license.key}
          />
        </div>
      ),
    },
    {
      label: "Owner",
      sortBy: (license) => [license.owner.name.toLocaleLowerCase(), license.owner.email.toLocaleLowerCase()],
      cell: (license) => (
        <span id={ids(license).owner} class="license-owner">
          <bdi>{license.owner.name}</bdi> <bdi class="hint">{license.owner.email}</bdi>
        </span>
      ),
    },
    {
      label: "Policy",
      cell: (license) =>
        license.policy_id === null ? (
          <span class="hint">—</span>
        ) : (
          <bdi>
            {policies.find((policy) => policy.id === license.policy_id)?.name ?? `#${license.policy_id}`}
          </bdi>
        ),
    },
    {
      label: "Status",
      sortBy: (license) => STATUS_LABELS[license.status],
      cell: (license) => (
        <span class={`status status-${license.status}`}>{STATUS_LABELS[license.status]}</span>
      ),
    },
    {
      label: "Seats",
      numeric: true,
      sortBy: (license) => [license.machine_count, license.max_machines ?? UNLIMITED],
      cell: (license) =>
        license.max_machines === null ? (
          <>
            {license.machine_count} <span class="qualifier">(uncounted)</span>
          </>
        ) : (
          `${license.machine_count}/${license.max_machines}`
        ),
    },
    {
      label: "IPs",
      numeric: true,
      sortBy: (license) => [license.ip_count, license.max_ips ?? UNLIMITED],
      cell: (license) =>
        license.max_ips === null ? (
          <>
            {license.ip_count} <span class="qualifier">(no limit)</span>
          </>
        ) : (
          `${license.ip_count}/${license.max_ips}`
        ),
    },
    {
      label: "Expires",
      // Never expiring sorts after every date.
      sortBy: (license) => (license.expires ? Date.parse(license.expires) : UNLIMITED),
      cell: (license) =>
        license.expires ? <time dateTime={license.expires}>{formatDate(license.expires)}</time> : "Never",
    },
    {
      label: "Actions",
      cell: (license) => (
        <span class="row-actions license-actions">
          {panelButton(license, "machines", "Machines")}
          {panelButton(license, "ips", "IPs")}
          {!license.revoked && panelButton(license, "settings", "Settings")}
          {!license.revoked && (
            <button
              type="button"
              class="danger"
              aria-describedby={ids(license).owner}
              onClick={() => onRevoke(license)}
              disabled={revoking === license.id}
            >
              {revoking === license.id ? "Revoking…" : "Revoke"}
            </button>
          )}
        </span>
      ),
    },
  ];

  /** The open panel, under its license's row. */
  const detail = (license: License) => {
    if (open?.id !== license.id) return null;
    const id = ids(license);
    if (open.panel === "machines")
      return (
        <LicenseMachines id={id.machines} productId={productId} license={license} onChanged={onChanged} />
      );
    if (open.panel === "ips")
      return <LicenseIps id={id.ips} productId={productId} license={license} onChanged={onChanged} />;
    return (
      <EditLicense
        id={id.settings}
        productId={productId}
        license={license}
        policies={policies}
        onSaved={() => {
          setOpen(null);
          onChanged();
        }}
      />
    );
  };

  return (
    <>
      <Table
        caption="Licenses"
        columns={columns}
        rows={licenses}
        rowKey={(license) => license.id}
        detail={detail}
        compact
      />
      <ShowMore more={more} noun="licenses" />
    </>
  );
}
