// Protected by path in src/middleware.ts; the page itself checks nothing.
export default function Account() {
  return (
    <main>
      <h1>Account</h1>
      <p id="account">This page is protected by the middleware.</p>
    </main>
  );
}
