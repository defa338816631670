// The JSON the dashboard reads and sends, as depot's own schemas declare it: every server shape the
// dashboard uses is named here, and only here. The imports are `import type`, so nothing of the
// server reaches the browser's bundle (tests/dashboard.test.ts checks it), and a schema that changes
// shape fails the dashboard's typecheck rather than a page.

import type { ApiKeyJson, NewApiKeyJson } from "../../features/api-keys/json.ts";
import type { CreateApiKeyBody } from "../../features/api-keys/schemas.ts";
import type { DownloadJson } from "../../features/downloads/json.ts";
import type {
  OwnLicenseJson,
  ProductLicenseIpsJson,
  ProductLicenseJson,
} from "../../features/licenses/json.ts";
import type {
  CreateProductLicenseInput,
  UpdateProductLicenseInput,
} from "../../features/licenses/schemas.ts";
import type { OfflineFileJson } from "../../features/machines/json.ts";
import type { NotificationJson } from "../../features/notifications/json.ts";
import type { OptionWithBenefitsJson } from "../../features/options/json.ts";
import type { PasswordLinkInfoJson, PasswordLinkJson } from "../../features/password-links/json.ts";
import type { PolicyJson } from "../../features/policies/json.ts";
import type { CreatePolicyInput, UpdatePolicyInput } from "../../features/policies/schemas.ts";
import type { ProductAccessJson, ProductJson } from "../../features/products/json.ts";
import type { UpdateProductInput } from "../../features/products/schemas.ts";
import type { ChangePasswordInput } from "../../features/profile/schemas.ts";
import type { PurchaseJson } from "../../features/purchases/json.ts";
import type { CreatePurchaseInput } from "../../features/purchases/schemas.ts";
import type { RoleWithCountJson } from "../../features/roles/json.ts";
import type { CreateRoleInput } from "../../features/roles/schemas.ts";
import type { SessionJson } from "../../features/sessions/json.ts";
import type { SetupInput } from "../../features/setup/schemas.ts";
import type { StatsJson } from "../../features/stats/json.ts";
import type { NewTokenJson, TokenJson } from "../../features/tokens/json.ts";
import type { CreateTokenInput } from "../../features/tokens/schemas.ts";
import type { UserJson } from "../../features/users/json.ts";
import type { CreateUserInput, UpdateUserInput } from "../../features/users/schemas.ts";
import type { VersionJson } from "../../features/versions/json.ts";
import type { PublishFields } from "../../features/versions/schemas.ts";
import type { NewWebhookJson, WebhookDeliveryJson, WebhookJson } from "../../features/webhooks/json.ts";
import type { CreateWebhookInput } from "../../features/webhooks/schemas.ts";

// --- the signed-in user and other users ---------------------------------------------------------

/** Who is signed in and the CSRF token to send back (sign-in and the session check answer it). */
export type Session = typeof SessionJson.static;
/** The signed-in user as the session describes them; every user JSON has at least these fields. */
export type User = Session["user"];
/** A user as the admin and profile APIs show them: the role with its timestamps. */
export type UserRecord = typeof UserJson.static;
export type NewUser = CreateUserInput;
export type UserChange = UpdateUserInput;
export type PasswordChange = ChangePasswordInput;
export type PasswordLink = typeof PasswordLinkJson.static;
/** Whom a set-password link is for, and until when it works. */
export type PasswordLinkInfo = typeof PasswordLinkInfoJson.static;
/** First run: the setup code and the first admin (POST /api/setup). */
export type SetupFields = SetupInput;
export type Role = typeof RoleWithCountJson.static;
export type NewRole = CreateRoleInput;

// --- credentials ---------------------------------------------------------------------------------

export type Token = typeof TokenJson.static;
/** A token as its creation answers it, with the secret shown this once. */
export type NewToken = typeof NewTokenJson.static;
export type TokenRequest = CreateTokenInput;
export type ApiKey = typeof ApiKeyJson.static;
/** A key as its creation answers it, with the key shown this once. */
export type NewApiKey = typeof NewApiKeyJson.static;
export type ApiKeyRequest = typeof CreateApiKeyBody.static;

// --- products, their options and versions --------------------------------------------------------

export type Product = typeof ProductJson.static;
/** The admin API's product fields; a form sends what is typed and lets the server name what is missing. */
export type ProductChange = UpdateProductInput;
export type ProductAccess = typeof ProductAccessJson.static;
/** An option with the benefits it includes. */
export type Option = typeof OptionWithBenefitsJson.static;
export type Version = typeof VersionJson.static;
/** One file of a version, for one platform and architecture. */
export type Artifact = Version["artifacts"][number];
export type Platform = Artifact["platform"];
export type Arch = Artifact["arch"];
/** What PATCH /api/products/{p}/versions/{v} changes: release a draft, yank, roll out (now or by steps), mark critical. */
export type ReleaseChange = Partial<
  Pick<Version, "status" | "yank_reason" | "critical" | "channel" | "rollout_percentage" | "rollout_schedule">
>;
/** The fields the publish form types; the file goes as a finished upload's id. */
export type VersionFields = Pick<PublishFields, "version_name" | "title" | "changelog" | "platform" | "arch">;
/** One product the reader holds, with its newest release and each benefit's. */
export type Download = typeof DownloadJson.static;

// --- purchases -----------------------------------------------------------------------------------

type ListedPurchase = typeof PurchaseJson.static;
/** A purchase as `?details=1` lists it: with its product, option and buyer. */
export type Purchase = Omit<ListedPurchase, "product" | "option" | "buyer"> &
  Required<Pick<ListedPurchase, "product" | "option" | "buyer">>;
/** A purchase to record; a form leaves out what is not chosen, for the server's 422 to name. */
export type PurchaseRequest = Partial<CreatePurchaseInput>;

// --- licenses ------------------------------------------------------------------------------------

/** A license as the product's vendor manages it. */
export type License = typeof ProductLicenseJson.static;
export type NewLicense = CreateProductLicenseInput;
/** A product's license policy: the settings the licenses made from it follow. */
export type Policy = typeof PolicyJson.static;
export type NewPolicy = CreatePolicyInput;
/** What the vendor changes of a policy: only the settings sent are changed. */
export type PolicyChange = UpdatePolicyInput;
/** What the vendor changes of an existing license: only the settings sent are changed. */
export type LicenseChange = UpdateProductLicenseInput;
/** An address a license was validated from. */
export type LicenseIp = (typeof ProductLicenseIpsJson.static)["data"][number];
/** One of the signed-in user's own licenses. */
export type OwnLicense = typeof OwnLicenseJson.static;
/** One of a license's machines, as its owner sees it. */
export type OwnMachine = OwnLicense["machines"][number];
/** An offline activation's answer: the machine and its machine-bound license file. */
export type OfflineFile = (typeof OfflineFileJson.static)["data"];

// --- notifications and webhooks ------------------------------------------------------------------

export type Notification = typeof NotificationJson.static;
export type Webhook = typeof WebhookJson.static;
/** An endpoint as its creation answers it, with the signing secret shown this once. */
export type NewWebhook = typeof NewWebhookJson.static;
export type WebhookRequest = CreateWebhookInput;
export type Delivery = typeof WebhookDeliveryJson.static;

/** Daily usage (GET /api/stats, GET /api/products/{id}/stats). */
export type Stats = StatsJson;
export type ValidationRow = NonNullable<Stats["series"]["validations"]>[number];
