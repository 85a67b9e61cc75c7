// Sign in to a running libauth bench server over its HTTP routes (csrf, then
// callback/credentials) and read the session back: the cookie and the
// session JSON text every benchmark measures with.
export async function signedInSession(base) {
  let res = await fetch(`${base}/auth/csrf`);
  const csrfCookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const { csrfToken } = await res.json();
  res = await fetch(`${base}/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: csrfCookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, username: "bench" }),
  });
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith("authjs.session-token="))
    .split(";")[0];
  const sessionJson = await (await fetch(`${base}/auth/session`, { headers: { cookie } })).text();
  return { cookie, sessionJson };
}
