// libauth/webauthn as docs/node.md shows it (compiled by test/types.test.mjs).
import {
  signIn,
  startConditionalUI,
  listPasskeys,
  renamePasskey,
  deletePasskey,
  initSignInPage,
  PasskeyError,
  type Passkey,
  type SignInResult,
} from "libauth/webauthn";

export async function passkeys(email: string): Promise<void> {
  const result: SignInResult = await signIn("passkey", { email, redirect: false, callbackUrl: "/account" });
  if (!result.ok) console.log(result.error, result.status);
  await signIn("passkey", { action: "register" });
  await signIn();
  const stop: () => void = startConditionalUI("passkey", {
    basePath: "/api/auth",
    onResult: (r) => console.log(r.url),
  });
  stop();
  const list: Passkey[] = await listPasskeys({ basePath: "/auth" });
  const first = list[0];
  if (first) {
    const renamed: Passkey = await renamePasskey(first.id, "Laptop");
    console.log(renamed.name, renamed.lastUsedAt, renamed.transports.join(","));
    try {
      await deletePasskey(first.id);
    } catch (e) {
      if (e instanceof PasskeyError && e.type === "LastSignInMethod") console.log(e.status);
    }
  }
  initSignInPage();
  initSignInPage(document.body);
}
