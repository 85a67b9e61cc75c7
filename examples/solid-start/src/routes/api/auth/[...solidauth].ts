// Every auth route under /api/auth (csrf, session, signin, callback, signout, …).
import type { APIEvent } from "@solidjs/start/server";
import { ReactiveAuth } from "libauth";
import { authConfig } from "~/auth";

const { GET: get, POST: post } = ReactiveAuth(authConfig);

export const GET = (event: APIEvent) => get(event);
export const POST = (event: APIEvent) => post(event);
