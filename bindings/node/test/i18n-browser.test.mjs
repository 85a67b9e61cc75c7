// The built-in sign-in page in its languages, in headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core): English, Arabic and Japanese
// at phone (390x844) and desktop (1280x800) width, with every kind of
// provider (credentials, OAuth with its logo, email, the passkey form) and an
// error message. Each is screenshotted (PNG, under LIBAUTH_TEST_OUTPUT or
// the system's temporary directory; not part of the repository) and checked:
// no text is clipped and nothing overflows the viewport; Arabic is laid out
// right to left (direction, label text against the field's right edge, the
// provider logo on the button's right). Then the passkey module's message
// after a failed ceremony, shown in the page's language (Arabic, and the
// pseudo-locale en-XA).
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ReactiveAuth, Credentials, GitHub, Email, Passkey } from "libauth";
import { listen, webServer, launch, CHROMIUM, SECRET, skipUnless } from "./helpers.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const skip = skipUnless(existsSync(CHROMIUM), "Debian chromium is not installed (apt-get install chromium)");
const OUT = process.env.LIBAUTH_TEST_OUTPUT || join(tmpdir(), "libauth-i18n-screenshots");

const VIEWPORTS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 800 },
];

/** A message of a built-in catalogue, read from its Fluent file (one-line messages). */
function catalogue(tag, id) {
  const source = readFileSync(`${root}core/locales/${tag}/pages.ftl`, "utf8");
  const line = source.split("\n").find((l) => l.startsWith(`${id} = `));
  assert.ok(line, `${tag} has ${id}`);
  return line.slice(id.length + 3);
}

/**
 * In the page: every text container whose content is wider or taller than
 * its box (clipped), every element reaching past the viewport's sides, and
 * whether the document scrolls sideways.
 */
function layoutProblems() {
  const problems = [];
  const width = window.innerWidth;
  const doc = document.documentElement;
  if (doc.scrollWidth > width) problems.push(`the page scrolls sideways: ${doc.scrollWidth} > ${width}`);
  for (const el of document.querySelectorAll("h1, p, label, button, span, a, input, .card, form, section")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue; // hidden
    const name = `${el.tagName.toLowerCase()}${el.className ? `.${el.className}` : ""} "${(el.textContent || el.getAttribute("placeholder") || "").trim().slice(0, 40)}"`;
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
      problems.push(`${name}: content ${el.scrollWidth}px wide in ${el.clientWidth}px`);
    if (el.scrollHeight > el.clientHeight + 1 && el.clientHeight > 0 && el.tagName !== "INPUT")
      problems.push(`${name}: content ${el.scrollHeight}px tall in ${el.clientHeight}px`);
    if (box.left < -0.5 || box.right > width + 0.5)
      problems.push(`${name}: from ${box.left.toFixed(1)} to ${box.right.toFixed(1)}, outside 0..${width}`);
  }
  return problems;
}

/**
 * In the page: whether `text` is drawn with real glyphs, not the missing
 * glyph's boxes (no font for the script: measuring would then check boxes,
 * not the language's text). Compared with two private-use characters, which
 * no font draws.
 */
function hasGlyphs(text) {
  const canvas = document.createElement("canvas");
  canvas.width = 96;
  canvas.height = 40;
  const g = canvas.getContext("2d");
  const draw = (s) => {
    g.clearRect(0, 0, canvas.width, canvas.height);
    g.font = getComputedStyle(document.body).font;
    g.fillText(s, 4, 30);
    return g.getImageData(0, 0, canvas.width, canvas.height).data.join(",");
  };
  return draw([...text].slice(0, 2).join("")) !== draw("\uE000\uE001");
}

/** In the page: where the first credentials label's text and its field are, and the OAuth button's logo and label. */
function mirroring() {
  const label = document.querySelector("label");
  const input = document.getElementById(label.htmlFor);
  const range = document.createRange();
  range.selectNodeContents(label);
  const text = range.getBoundingClientRect();
  const field = input.getBoundingClientRect();
  const oauth = document.querySelector("button.oauth");
  const logo = oauth.querySelector("img").getBoundingClientRect();
  const caption = oauth.querySelector("span").getBoundingClientRect();
  return {
    dir: document.documentElement.dir,
    lang: document.documentElement.lang,
    direction: getComputedStyle(label.closest("form")).direction,
    inputDirection: getComputedStyle(input).direction,
    text: { left: text.left, right: text.right },
    field: { left: field.left, right: field.right },
    logo: { left: logo.left, right: logo.right },
    caption: { left: caption.left, right: caption.right },
  };
}

describe("the sign-in page in English, Arabic and Japanese (headless Chromium)", { skip }, () => {
  let browser;
  let server;
  before(async () => {
    mkdirSync(OUT, { recursive: true });
    browser = await launch();
    const config = {
      secret: SECRET,
      experimental: { enableWebAuthn: true },
      adapter: { type: "memory" },
      providers: [
        Credentials({
          credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
          authorize: async () => null,
        }),
        GitHub({ clientId: "id", clientSecret: "secret" }),
        Email({ sendVerificationRequest: async () => {} }),
        Passkey(),
      ],
      i18n: { locales: ["en", "ar", "ja", "en-XA"] },
    };
    const { GET, POST } = ReactiveAuth(config);
    server = await listen(webServer((request) => (request.method === "POST" ? POST : GET)({ request })));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The sign-in page at `viewport` in `tag`, with the error a refused password shows. */
  async function signInPage(tag, viewport) {
    const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
    const page = await context.newPage();
    const origin = server.url.replace("127.0.0.1", "localhost");
    const res = await page.goto(`${origin}/api/auth/signin?locale=${tag}&error=CredentialsSignin`);
    assert.equal(res.status(), 200);
    await page.evaluate(() => document.fonts.ready);
    return { context, page };
  }

  for (const tag of ["en", "ar", "ja"]) {
    for (const viewport of VIEWPORTS) {
      it(`${tag} at ${viewport.width}x${viewport.height}: no text clipped, nothing past the viewport${tag === "ar" ? ", mirrored" : ""}`, async () => {
        const { context, page } = await signInPage(tag, viewport);
        try {
          const file = join(OUT, `signin-${tag}-${viewport.name}-${viewport.width}x${viewport.height}.png`);
          await page.screenshot({ path: file, fullPage: true });
          assert.ok(existsSync(file));
          // The page is the locale's: its heading and the error message,
          // drawn in a font that has the script.
          const heading = catalogue(tag, "signin-heading");
          assert.equal(await page.textContent("h1"), heading);
          assert.ok(
            await page.evaluate(hasGlyphs, heading),
            `${tag}: no font draws ${heading} (Debian: apt-get install fonts-noto-cjk; scripts/test.sh does)`,
          );
          assert.equal(await page.evaluate(hasGlyphs, "\uE002\uE003"), false, "the glyph check tells boxes apart");
          assert.equal((await page.textContent(".error")).trim(), catalogue(tag, "signin-error-credentials"));
          const problems = await page.evaluate(layoutProblems);
          assert.deepEqual(problems, [], `${tag} ${viewport.name}: ${problems.join("; ")} (see ${file})`);
          const m = await page.evaluate(mirroring);
          assert.equal(m.lang, tag);
          if (tag === "ar") {
            assert.equal(m.dir, "rtl");
            assert.equal(m.direction, "rtl");
            assert.equal(m.inputDirection, "rtl");
            // The label's text starts at the field's right edge, the logo
            // sits right of the button's caption.
            assert.ok(Math.abs(m.text.right - m.field.right) <= 2, `label text ${JSON.stringify(m)}`);
            assert.ok(m.text.left > m.field.left + 20, `label text not at the left ${JSON.stringify(m)}`);
            assert.ok(m.logo.left >= m.caption.right - 1, `logo right of the caption ${JSON.stringify(m)}`);
          } else {
            assert.equal(m.dir, "");
            assert.equal(m.direction, "ltr");
            assert.ok(Math.abs(m.text.left - m.field.left) <= 2, `label text ${JSON.stringify(m)}`);
            assert.ok(m.logo.right <= m.caption.left + 1, `logo left of the caption ${JSON.stringify(m)}`);
          }
        } finally {
          await context.close();
        }
      });
    }
  }

  /** Click the passkey button with the ceremony failing as `error` (a DOMException name); the message shown. */
  async function passkeyFailure(tag, error) {
    const { context, page } = await signInPage(tag, VIEWPORTS[1]);
    try {
      await page.evaluate((name) => {
        navigator.credentials.get = () => Promise.reject(new DOMException("test", name));
      }, error);
      await page.click("form[data-webauthn-provider] button");
      await page.waitForSelector("[data-webauthn-error]:not([hidden])", { timeout: 20000 });
      const shown = await page.textContent("[data-webauthn-error]");
      const problems = await page.evaluate(layoutProblems);
      assert.deepEqual(problems, [], `${tag}: ${problems.join("; ")}`);
      await page.screenshot({ path: join(OUT, `signin-${tag}-passkey-${error}.png`), fullPage: true });
      return shown;
    } finally {
      await context.close();
    }
  }

  it("the passkey module's message after a failed ceremony is in the page's language", async () => {
    assert.equal(await passkeyFailure("ar", "NotAllowedError"), catalogue("ar", "passkey-error-cancelled"));
    assert.equal(await passkeyFailure("en", "NotAllowedError"), "The passkey request was cancelled or timed out.");
    // The pseudo-locale: no English left, the error's code filled in.
    const pseudo = await passkeyFailure("en-XA", "AbortError");
    const english = catalogue("en", "passkey-error-failed").replace("{ $error }", "AbortError");
    assert.notEqual(pseudo, english);
    assert.match(pseudo, /\(AbortError\)\.$/u);
    assert.match(pseudo, /[àéîöüšţĥ]/u, pseudo);
    assert.ok(!/sign-in|failed/i.test(pseudo), pseudo);
  });
});
