import { t } from "elysia";

/** `PublicJwk` as the document describes it; `JwksJson` is the set a JWKS answers. */
export const JwkJson = t.Object({
  kty: t.Literal("OKP"),
  crv: t.Literal("Ed25519"),
  x: t.String({ description: "the raw public key, base64url" }),
  kid: t.String({ description: "its RFC 7638 thumbprint" }),
  alg: t.Literal("EdDSA"),
  use: t.Literal("sig"),
});

export const JwksJson = t.Object({ keys: t.Array(JwkJson) });
