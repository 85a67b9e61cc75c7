// Client-side-rendered pages protected by path: without a
// session, a request for one of these paths is redirected to "/".
import { createMiddleware } from "@solidjs/start/middleware";
import { getSession } from "libauth";
import { authConfig } from "~/auth";

const protectedPaths = ["/account", "/settings"];

export default createMiddleware({
  onRequest: async (event) => {
    const { pathname } = new URL(event.request.url);
    if (!protectedPaths.some((p) => pathname === p || pathname.startsWith(`${p}/`))) return;
    const session = await getSession(event.request, authConfig);
    if (!session?.user) {
      return new Response(null, { status: 302, headers: { location: "/" } });
    }
    event.locals.session = session;
  },
});
