import { expect, test } from "bun:test";

/** One protected route: how to call it with a token, who must be refused and who let in. */
export interface GuardedRoute {
  route: string;
  send(token: string | undefined): Promise<Response>;
  /** Tokens that must be refused, with the status and message they get (403, or 404 where hiding is the rule). */
  denied: () => { who: string; token: string; status: number; message: string }[];
  allowed: () => { who: string; token: string; status: number };
}

const UNAUTHENTICATED = { message: "Unauthenticated." };

/**
 * The shared auth matrix: no token, a malformed token, a well-formed unknown token,
 * each wrong permission, and the right permission — for every route given.
 */
export function authMatrix(routes: () => GuardedRoute[], names: string[]) {
  const find = (name: string) => {
    const route = routes().find((r) => r.route === name);
    if (!route) throw new Error(`no route ${name}`);
    return route;
  };
  test.each(names)("%s: no token, garbled token, unknown token → 401", async (name) => {
    const route = find(name);
    for (const token of [undefined, "garbled", "999999|aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]) {
      const response = await route.send(token);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await response.json()).toEqual(UNAUTHENTICATED);
    }
  });
  test.each(names)("%s: wrong permission refused, right permission let in", async (name) => {
    const route = find(name);
    for (const { who, token, status, message } of route.denied()) {
      const response = await route.send(token);
      expect({ who, status: response.status }).toEqual({ who, status });
      expect(await response.json()).toEqual({ message });
    }
    const { who, token, status } = route.allowed();
    const response = await route.send(token);
    expect({ who, status: response.status }).toEqual({ who, status });
    if (status === 204) expect(await response.text()).toBe("");
    else expect(response.headers.get("content-type")).toContain("application/json");
  });
}
