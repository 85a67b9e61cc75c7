// A software WebAuthn authenticator for Node tests and benchmarks: a P-256
// key from node:crypto, attestation "none", the CBOR written here (just
// what an authenticator sends). Its credentials are what
// `credential.toJSON()` gives in a browser.
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";

const b64url = (bytes) => Buffer.from(bytes).toString("base64url");

/** The CBOR an authenticator writes (RFC 8949): maps, ints, text, bytes. */
export function cbor(value) {
  const head = (major, n) => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(n, 1);
    return b;
  };
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  const entries = value instanceof Map ? [...value] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

/**
 * A platform authenticator with one ES256 passkey (a fresh P-256 key).
 * `counts: false` keeps the signature counter at 0, as many platform
 * authenticators do (then assertions may be used in any order).
 */
export class SoftAuthenticator {
  constructor(origin, { counts = true } = {}) {
    this.origin = origin;
    this.rpId = new URL(origin).hostname;
    this.keys = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.credentialId = randomBytes(16);
    this.counter = 0;
    this.counts = counts;
  }

  /** The passkey's public key as COSE bytes (what the server stores). */
  coseKey() {
    const jwk = this.keys.publicKey.export({ format: "jwk" });
    return cbor(
      new Map([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x, "base64url")],
        [-3, Buffer.from(jwk.y, "base64url")],
      ]),
    );
  }

  clientData(type, challenge) {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  authData(flags, extra = Buffer.alloc(0)) {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    const rpIdHash = createHash("sha256").update(this.rpId).digest();
    return Buffer.concat([rpIdHash, Buffer.from([flags]), counter, extra]);
  }

  register(options) {
    this.userHandle = Buffer.from(options.user.id, "base64url");
    const coseKey = this.coseKey();
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, coseKey]);
    const attestationObject = cbor({ fmt: "none", attStmt: {}, authData: this.authData(0x45, attested) });
    return {
      id: b64url(this.credentialId),
      rawId: b64url(this.credentialId),
      type: "public-key",
      response: {
        clientDataJSON: b64url(this.clientData("webauthn.create", options.challenge)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
    };
  }

  authenticate(options) {
    if (this.counts) this.counter += 1;
    const clientData = this.clientData("webauthn.get", options.challenge);
    const authData = this.authData(0x05);
    const signed = Buffer.concat([authData, createHash("sha256").update(clientData).digest()]);
    return {
      id: b64url(this.credentialId),
      rawId: b64url(this.credentialId),
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(sign("sha256", signed, this.keys.privateKey)),
        userHandle: b64url(this.userHandle),
      },
      clientExtensionResults: {},
    };
  }
}
