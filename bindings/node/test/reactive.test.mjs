// The reactive adapter behind a real HTTP server that hands it Web
// Requests, as SolidStart does.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ReactiveAuth, getSession } from "libauth";
import { listen, webServer } from "./helpers.mjs";
import { protocolSuite, baseConfig } from "./flows.mjs";

function start(config, prefix) {
  const { GET, POST } = ReactiveAuth(config);
  return listen(
    webServer(async (request) => {
      const event = { request, locals: {} };
      const url = new URL(request.url);
      if (url.pathname === "/me") {
        const session = await getSession(request, config);
        if (!session?.user) return new Response(null, { status: 302, headers: { location: "/login" } });
        return Response.json(session);
      }
      return request.method === "POST" ? POST(event) : GET(event);
    }),
  ).then((s) => ({ ...s, basePath: prefix }));
}

protocolSuite("ReactiveAuth, default prefix /api/auth", () => start(baseConfig(), "/api/auth"));
protocolSuite("ReactiveAuth, prefix /auth", () => start(baseConfig({ prefix: "/auth" }), "/auth"));

describe("ReactiveAuth outside its prefix", () => {
  it("resolves to undefined for paths outside the prefix", async () => {
    const { GET, POST } = ReactiveAuth(baseConfig());
    assert.equal(await GET({ request: new Request("http://localhost/other") }), undefined);
    assert.equal(await GET({ request: new Request("http://localhost/api/authx/session") }), undefined);
    assert.equal(await POST({ request: new Request("http://localhost/", { method: "POST", body: "x" }) }), undefined);
    const res = await GET({ request: new Request("http://localhost/api/auth/session") });
    assert.equal(res.status, 200);
    assert.equal(await res.json(), null);
  });

  it("getSession accepts the event as well as the request", async () => {
    const config = baseConfig();
    ReactiveAuth(config);
    assert.equal(await getSession({ request: new Request("http://localhost/") }, config), null);
  });
});
