import type { SignedIn } from "../sessions/service.ts";
import type { Actor, ApiKeyActor } from "./actor.ts";

// What the guards learn about a request, added to the record http/ keeps for it: http/ itself knows
// nothing of users or keys, and the request log reads only `who`.
declare module "../../http/request-state.ts" {
  interface RequestState {
    /** The user of a bearer token or of the session cookie, once authenticated. */
    actor?: Actor;
    /** The dashboard session behind the cookie, once checked (also for routes about the session itself). */
    session?: SignedIn;
    /** The license API key of `x-api-key`, once checked. */
    apiKey?: ApiKeyActor;
  }
}
