// A sign-in form handled by a server action: libauth's `signIn` runs on the
// server with the submitted fields (no CSRF round trip: SolidStart's server
// functions are the form's endpoint), and a refusal is thrown to the action
// instead of redirecting, so the page shows it.
import { action, redirect, useSubmission } from "@solidjs/router";
import { getRequestEvent } from "solid-js/web";
import { Show } from "solid-js";
import { signIn, signOut, CredentialsSignin } from "libauth";
import { authConfig } from "~/auth";

/** The action's Set-Cookie values on its redirect (SolidStart forwards them). */
function redirectWith(url: string, cookies: string[]) {
  const headers = new Headers();
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return redirect(url, { headers });
}

const login = action(async (form: FormData) => {
  "use server";
  const event = getRequestEvent()!;
  try {
    const { url, cookies } = await signIn("credentials", form, event.request, authConfig);
    return redirectWith(url, cookies);
  } catch (e) {
    // `code` is what authorize put in the CredentialsSignin it threw.
    if (e instanceof CredentialsSignin) return { error: e.code };
    throw e;
  }
}, "login");

const logout = action(async () => {
  "use server";
  const { url, cookies } = await signOut(getRequestEvent()!.request, authConfig);
  return redirectWith(url, cookies);
}, "logout");

export default function Login() {
  const submission = useSubmission(login);
  return (
    <main>
      <h1>Sign in</h1>
      <form action={login} method="post">
        <input type="hidden" name="callbackUrl" value="/dashboard" />
        <label>
          Username <input id="username" name="username" placeholder="demo" />
        </label>
        <label>
          Password <input id="password" name="password" type="password" />
        </label>
        <button id="sign-in" type="submit">
          Sign in
        </button>
      </form>
      <form action={logout} method="post">
        <button id="sign-out" type="submit">
          Sign out
        </button>
      </form>
      <Show when={(submission.result as { error?: string } | undefined)?.error}>
        {(code) => <p id="login-error">Sign-in failed: {code()}</p>}
      </Show>
    </main>
  );
}
