import { expect, test } from "bun:test";

/** One caller of a protected route and what they must get. */
export interface Access {
  who: string;
  credential: string;
  status: number;
  /** The refusal's message (denied callers only). */
  message?: string;
}

/** One protected route: how to call it with a credential, who must be refused and who let in. */
export interface GuardedRoute {
  /** `METHOD /path/:param`, exactly as the app lists the route. */
  route: string;
  /** Bearer token (default) or the license API's `x-api-key`. */
  scheme?: "bearer" | "apiKey";
  send(credential: string | undefined): Promise<Response>;
  /** A user without the permission (403, or 404 where hiding is the rule), another creator's key… */
  denied: () => Access[];
  /** The owner and the admin, as the route allows them. */
  allowed: () => Access[];
  /** What an allowed caller gets (default: JSON). */
  contentType?: string;
}

/** Credentials no route may accept, per scheme: none, malformed, well-formed but unknown (or deleted). */
export function badCredentials(scheme: "bearer" | "apiKey", deletedApiKey: string) {
  return scheme === "bearer"
    ? {
        message: "Unauthenticated.",
        challenge: "Bearer",
        credentials: [undefined, "garbled", "999999|aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
      }
    : {
        message: "Invalid API key.",
        challenge: "ApiKey",
        credentials: [
          undefined,
          "",
          "dpk_0000000000000000000000000000000000000000000",
          "' OR '1'='1",
          deletedApiKey,
        ],
      };
}

/**
 * The shared auth matrix, for every route given: no credentials and wrong credentials → 401, each
 * denied caller refused with its status and message, each allowed caller let in.
 */
export function authMatrix(routes: () => GuardedRoute[], names: string[], deletedApiKey: () => string) {
  const find = (name: string) => {
    const route = routes().find((r) => r.route === name);
    if (!route) throw new Error(`no route ${name}`);
    return route;
  };
  test.each(names)("%s: no credentials or wrong ones → 401", async (name) => {
    const route = find(name);
    const bad = badCredentials(route.scheme ?? "bearer", deletedApiKey());
    for (const credential of bad.credentials) {
      const response = await route.send(credential);
      expect({ credential, status: response.status }).toEqual({ credential, status: 401 });
      expect(response.headers.get("www-authenticate")).toBe(bad.challenge);
      expect(await response.json()).toEqual({ message: bad.message });
    }
  });
  test.each(names)("%s: refused without the right, let in with it", async (name) => {
    const route = find(name);
    for (const { who, credential, status, message } of route.denied()) {
      const response = await route.send(credential);
      expect({ who, status: response.status }).toEqual({ who, status });
      expect(await response.json()).toEqual({ message });
    }
    for (const { who, credential, status } of route.allowed()) {
      const response = await route.send(credential);
      expect({ who, status: response.status }).toEqual({ who, status });
      if (status === 204) expect(await response.text()).toBe("");
      else expect(response.headers.get("content-type")).toContain(route.contentType ?? "application/json");
    }
  });
}
