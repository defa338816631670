import { t } from "elysia";
import { Int } from "../../validation/schemas.ts";
import { VersionJson } from "../versions/json.ts";

const Latest = t.Union([VersionJson, t.Null()], { description: "null: nothing published yet" });

/** One product the caller holds: its newest release, and each benefit they have with its newest. */
export const DownloadJson = t.Object({
  product: t.Object({ id: Int(), name: t.String() }),
  latest: Latest,
  benefits: t.Array(t.Object({ id: Int(), name: t.String(), latest: Latest })),
});

export const DownloadListJson = t.Object({ data: t.Array(DownloadJson) });
