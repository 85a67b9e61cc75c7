// Protected in the route's server loader (SSR): no session, a real 302 to "/".
import { createAsync, query, redirect } from "@solidjs/router";
import { getRequestEvent } from "solid-js/web";
import { getSession } from "libauth";
import { authConfig } from "~/auth";

const requireSession = query(async () => {
  "use server";
  const event = getRequestEvent();
  const session = event ? await getSession(event.request, authConfig) : null;
  if (!session?.user) throw redirect("/");
  return session;
}, "dashboard-session");

export const route = { preload: () => requireSession() };

export default function Dashboard() {
  const session = createAsync(() => requireSession(), { deferStream: true });
  return (
    <main>
      <h1>Dashboard</h1>
      <p id="secret">Hello {session()?.user?.name}, this page is protected by its loader.</p>
    </main>
  );
}
