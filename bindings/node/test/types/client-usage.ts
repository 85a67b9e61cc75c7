import {
  signIn,
  signOut,
  getSession,
  getCsrfToken,
  getProviders,
  configure,
  type SignInResponse,
} from "libauth/client";

configure({ basePath: "/api/auth" });
export async function run(): Promise<void> {
  const result: SignInResponse = await signIn("credentials", { username: "ada", password: "x", redirect: false });
  if (result.error === "CredentialsSignin") console.log(result.code);
  await signIn("tiktok", { redirectTo: "/dashboard" });
  await signIn();
  const s = await getSession();
  console.log(s?.user?.email, await getCsrfToken(), await getProviders());
  const out = await signOut({ redirect: false });
  console.log(out.url);
  await signOut({ redirectTo: "/" });
}
