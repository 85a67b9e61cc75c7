// Headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core
// from bindings/node's dev dependencies) through an example app at <origin>:
// a protected page without a session, the built-in sign-in page with
// credentials (demo / demo), sign-out, then TikTok (the simulator).
// Prints one JSON line of what it saw; tests/test_examples.py asserts on it.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const require = createRequire(`${root}bindings/node/package.json`);
const { chromium } = require("playwright-core");

const origin = process.argv[2];
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
const seen = {};
try {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  await page.goto(`${origin}/dashboard`);
  seen.redirectedTo = page.url();
  await page.fill("#input-username-for-credentials", "demo");
  await page.fill("#input-password-for-credentials", "demo");
  await Promise.all([page.waitForURL(`${origin}/dashboard`), page.click("text=Sign in with Credentials")]);
  seen.credentialsSecret = await page.textContent("#secret");
  await page.goto(`${origin}/`);
  seen.who = await page.textContent("#who");
  await page.goto(`${origin}/auth/signout`);
  await Promise.all([page.waitForURL(`${origin}/**`), page.click("button[type=submit]")]);
  await page.goto(`${origin}/`);
  seen.afterSignOut = await page.textContent("#who");
  await page.goto(`${origin}/dashboard`);
  await Promise.all([page.waitForURL(`${origin}/dashboard`), page.click("text=Sign in with TikTok")]);
  seen.tiktokSecret = await page.textContent("#secret");
  await context.close();
} finally {
  await browser.close();
}
process.stdout.write(`${JSON.stringify(seen)}\n`);
