import { createAsync, query } from "@solidjs/router";
import { getRequestEvent } from "solid-js/web";
import { Show } from "solid-js";
import { getSession } from "libauth";
import { authConfig } from "~/auth";

const currentSession = query(async () => {
  "use server";
  const event = getRequestEvent();
  return event ? await getSession(event.request, authConfig) : null;
}, "session");

export default function Home() {
  const session = createAsync(() => currentSession(), { deferStream: true });
  return (
    <main>
      <h1>libauth × SolidStart</h1>
      <Show
        when={session()?.user}
        fallback={
          <p id="who">
            Not signed in. <a href="/api/auth/signin">Sign in</a> (demo / demo)
          </p>
        }
      >
        {(user) => (
          <p id="who">
            Signed in as {user().name}. <a href="/dashboard">Dashboard</a> · <a href="/account">Account</a> ·{" "}
            <a href="/api/auth/signout">Sign out</a>
          </p>
        )}
      </Show>
    </main>
  );
}
