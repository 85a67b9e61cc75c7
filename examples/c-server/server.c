/* libauth's C example: a small HTTP server (GNU libmicrohttpd) that mounts
 * libauth at /auth and serves an app around it.
 *
 *   ./run.sh        (builds everything, starts the TikTok simulator and this server)
 *   make && AUTH_SECRET=$(head -c 33 /dev/urandom | base64) ./c-server
 *   open http://localhost:8080/   (sign in as demo / demo, or with a passkey:
 *   passkeys need a name, not 127.0.0.1)
 *
 * - /auth/...   every Auth.js route, answered by the engine (auth_handle):
 *               the sign-in page with the credentials form and a TikTok
 *               button, csrf, callbacks, session, sign-out
 * - /           home: who is signed in (auth_session_read: the session as a
 *               handle, its fields read without parsing JSON)
 * - /dashboard  protected: without a session, a redirect to the sign-in page
 * - /bare       for the benchmark (bench/c/http.sh) only: the page /dashboard
 *               renders for the demo user, without reading the session, so
 *               that the cost of the session read can be measured
 *
 * Credentials sign-in runs `authorize` below, a C hook. TikTok sign-in goes
 * to TikTok when AUTH_TIKTOK_ID / AUTH_TIKTOK_SECRET are set, otherwise to the
 * local simulator at TIKTOK_SIM_URL (tests/tiktok-sim), when set.
 * Passkeys (WebAuthn) are on: users and their passkeys live in SQLite
 * (AUTH_DB, default ./auth.db); sessions are JWTs in a cookie.
 * Environment: PORT (default 8080), AUTH_SECRET (required; read by libauth),
 * AUTH_DB, TIKTOK_SIM_URL, AUTH_TIKTOK_ID, AUTH_TIKTOK_SECRET.
 *
 * libmicrohttpd runs requests on a pool of threads; they all share the one
 * engine, and hooks run on whichever thread handles the request. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cjson/cJSON.h>
#include <microhttpd.h>

#include "auth.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_Result_t;
#else
typedef enum MHD_Result MHD_Result_t;
#endif

#define MAX_BODY (64 * 1024)

static auth_engine *auth;

/* ---- the hook: credentials `authorize` (demo / demo) ---------------------- */

static int32_t hook(void *user_data, const char *name, const char *args_json, size_t args_len,
                    auth_hook_result *result) {
    (void)user_data;
    if (strcmp(name, "providers.credentials.authorize") != 0) return AUTH_HOOK_OK; /* not called */
    cJSON *args = cJSON_ParseWithLength(args_json, args_len);
    cJSON *creds = cJSON_GetObjectItem(args, "credentials");
    const char *user = cJSON_GetStringValue(cJSON_GetObjectItem(creds, "username"));
    const char *pass = cJSON_GetStringValue(cJSON_GetObjectItem(creds, "password"));
    int ok = user && pass && strcmp(user, "demo") == 0 && strcmp(pass, "demo") == 0;
    cJSON_Delete(args);
    if (!ok) {
        /* Back to the sign-in page with error=CredentialsSignin&code=invalid_login. */
        auth_hook_result_error(result, "CredentialsSignin", "wrong username or password", "invalid_login");
        return AUTH_HOOK_ERROR;
    }
    static const char user_json[] = "{\"id\":\"1\",\"name\":\"Demo User\",\"email\":\"demo@example.com\"}";
    auth_hook_result_set(result, user_json, sizeof user_json - 1); /* copied: nothing to free */
    return AUTH_HOOK_OK;
}

/* ---- the configuration ---------------------------------------------------- */

static const char *env_or(const char *name, const char *fallback) {
    const char *value = getenv(name);
    return value ? value : fallback;
}

static char *config_json(void) {
    cJSON *config = cJSON_CreateObject();
    /* A local example: trust the browser's Host. Deploy with AUTH_URL instead. */
    cJSON_AddTrueToObject(config, "trustHost");
    cJSON *providers = cJSON_AddArrayToObject(config, "providers");
    cJSON *credentials = cJSON_CreateObject();
    cJSON_AddStringToObject(credentials, "id", "credentials");
    cJSON_AddStringToObject(credentials, "type", "credentials");
    cJSON *fields = cJSON_AddObjectToObject(credentials, "credentials");
    cJSON *username = cJSON_AddObjectToObject(fields, "username");
    cJSON_AddStringToObject(username, "label", "Username");
    cJSON_AddStringToObject(username, "placeholder", "demo");
    cJSON *password = cJSON_AddObjectToObject(fields, "password");
    cJSON_AddStringToObject(password, "label", "Password");
    cJSON_AddStringToObject(password, "type", "password");
    cJSON_AddItemToArray(providers, credentials);
    const char *sim = getenv("TIKTOK_SIM_URL");
    if (getenv("AUTH_TIKTOK_ID")) {
        cJSON *tiktok = cJSON_CreateObject(); /* AUTH_TIKTOK_ID / AUTH_TIKTOK_SECRET */
        cJSON_AddStringToObject(tiktok, "builtin", "tiktok");
        cJSON_AddItemToArray(providers, tiktok);
    } else if (sim && *sim) {
        char url[1024];
        cJSON *tiktok = cJSON_CreateObject();
        cJSON_AddStringToObject(tiktok, "builtin", "tiktok");
        cJSON_AddStringToObject(tiktok, "clientId", env_or("TIKTOK_SIM_CLIENT_KEY", "sim-client-key"));
        cJSON_AddStringToObject(tiktok, "clientSecret", env_or("TIKTOK_SIM_CLIENT_SECRET", "sim-client-secret"));
        snprintf(url, sizeof url, "%s/v2/auth/authorize/", sim);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(tiktok, "authorization"), "url", url);
        snprintf(url, sizeof url, "%s/v2/oauth/token/", sim);
        cJSON_AddStringToObject(tiktok, "token", url);
        snprintf(url, sizeof url, "%s/v2/user/info/", sim);
        cJSON_AddStringToObject(tiktok, "userinfo", url);
        cJSON_AddItemToArray(providers, tiktok);
    }
    /* Passkeys (WebAuthn): the passkey provider, the experimental flag, and
     * somewhere to keep users and their passkeys (SQLite, AUTH_DB). Sessions
     * stay JWTs in a cookie. The sign-in page offers "Sign in with Passkey". */
    cJSON *passkey = cJSON_CreateObject();
    cJSON_AddStringToObject(passkey, "id", "passkey");
    cJSON_AddStringToObject(passkey, "type", "webauthn");
    cJSON_AddStringToObject(passkey, "name", "Passkey");
    cJSON_AddItemToArray(providers, passkey);
    /* Email + password accounts, when an SMTP server is named
     * (AUTH_SMTP_HOST, AUTH_SMTP_PORT): sign up on /auth/password/signup; the
     * verification and reset links go out by mail. */
    const char *smtp = getenv("AUTH_SMTP_HOST");
    if (smtp && *smtp) {
        cJSON *pw = cJSON_CreateObject();
        cJSON_AddStringToObject(pw, "type", "password");
        cJSON_AddStringToObject(pw, "from", "libauth example <no-reply@example.com>");
        cJSON *server = cJSON_AddObjectToObject(pw, "server");
        cJSON_AddStringToObject(server, "host", smtp);
        cJSON_AddNumberToObject(server, "port", atoi(env_or("AUTH_SMTP_PORT", "587")));
        cJSON_AddItemToArray(providers, pw);
    }
    cJSON_AddTrueToObject(cJSON_AddObjectToObject(config, "experimental"), "enableWebAuthn");
    cJSON *adapter = cJSON_AddObjectToObject(config, "adapter");
    cJSON_AddStringToObject(adapter, "type", "sqlite");
    const char *db = getenv("AUTH_DB");
    cJSON_AddStringToObject(adapter, "path", db && *db ? db : "auth.db");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(config, "session"), "strategy", "jwt");
    cJSON *hooks = cJSON_AddObjectToObject(config, "hooks");
    cJSON *implemented = cJSON_AddArrayToObject(hooks, "implemented");
    cJSON_AddItemToArray(implemented, cJSON_CreateString("providers.credentials.authorize"));
    cJSON_AddNumberToObject(hooks, "timeout", 5); /* authorize does no I/O: 5 s is plenty */
    char *out = cJSON_PrintUnformatted(config);
    cJSON_Delete(config);
    return out;
}

/* ---- one request ---------------------------------------------------------- */

/* What a connection accumulates: the raw URI (with its query) and the body. */
typedef struct {
    char *uri;
    char *body;
    size_t len;
    int started;
    int too_large;
} request_state;

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn) {
    (void)cls;
    (void)conn;
    request_state *st = calloc(1, sizeof *st);
    if (st) st->uri = strdup(uri);
    return st;
}

static void on_done(void *cls, struct MHD_Connection *conn, void **req_cls, enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)conn;
    (void)toe;
    request_state *st = *req_cls;
    if (st) {
        free(st->uri);
        free(st->body);
        free(st);
    }
    *req_cls = NULL;
}

static MHD_Result_t add_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    cJSON *pair = cJSON_CreateArray();
    cJSON_AddItemToArray(pair, cJSON_CreateString(key));
    cJSON_AddItemToArray(pair, cJSON_CreateString(value ? value : ""));
    cJSON_AddItemToArray(cls, pair);
    return MHD_YES;
}

/* The request as libauth reads it: method, absolute URL, headers, body. */
static char *engine_request(struct MHD_Connection *conn, const char *method, request_state *st) {
    const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    char *url = NULL;
    if (asprintf(&url, "http://%s%s", host ? host : "localhost", st->uri) < 0) return NULL;
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "method", method);
    cJSON_AddStringToObject(req, "url", url);
    free(url);
    MHD_get_connection_values(conn, MHD_HEADER_KIND, add_header, cJSON_AddArrayToObject(req, "headers"));
    /* The peer address: what libauth's rate limits count. */
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    char peer[INET6_ADDRSTRLEN] = "";
    if (info && info->client_addr) {
        const struct sockaddr *sa = info->client_addr;
        if (sa->sa_family == AF_INET) inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, peer, sizeof peer);
        if (sa->sa_family == AF_INET6) inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, peer, sizeof peer);
    }
    if (peer[0]) cJSON_AddStringToObject(req, "remoteAddress", peer);
    if (st->body) {
        /* The engine reads form and JSON bodies, which are UTF-8. */
        char *body = strndup(st->body, st->len);
        cJSON_AddStringToObject(req, "body", body ? body : "");
        free(body);
    }
    char *out = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    return out;
}

static MHD_Result_t send_text(struct MHD_Connection *conn, unsigned status, const char *type, const char *text,
                              const char *location) {
    struct MHD_Response *res = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (location) MHD_add_response_header(res, MHD_HTTP_HEADER_LOCATION, location);
    MHD_Result_t ret = MHD_queue_response(conn, status, res);
    MHD_destroy_response(res);
    return ret;
}

/* Write libauth's response as is: status, every header (each Set-Cookie its
 * own), body. */
static MHD_Result_t send_engine_response(struct MHD_Connection *conn, const auth_buffer *buf) {
    cJSON *json = cJSON_ParseWithLength(buf->data, buf->len);
    const char *body = cJSON_GetStringValue(cJSON_GetObjectItem(json, "body"));
    if (!body) body = "";
    struct MHD_Response *res = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    cJSON *pair;
    cJSON_ArrayForEach(pair, cJSON_GetObjectItem(json, "headers")) {
        const char *k = cJSON_GetStringValue(cJSON_GetArrayItem(pair, 0));
        const char *v = cJSON_GetStringValue(cJSON_GetArrayItem(pair, 1));
        if (k && v && strcasecmp(k, "content-length") != 0) MHD_add_response_header(res, k, v);
    }
    MHD_Result_t ret = MHD_queue_response(conn, (unsigned)cJSON_GetObjectItem(json, "status")->valueint, res);
    MHD_destroy_response(res);
    cJSON_Delete(json);
    return ret;
}

/* The request's Cookie headers as one value: the first header's value as
 * is (no copy: a browser sends a single Cookie header), and only when
 * another follows, all of them joined with "; " into `joined`. */
typedef struct {
    const char *value;
    size_t len;
    char *joined;
} cookies;

static MHD_Result_t add_cookie(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    cookies *c = cls;
    if (strcasecmp(key, MHD_HTTP_HEADER_COOKIE) != 0 || !value) return MHD_YES;
    size_t n = strlen(value);
    if (!c->value) {
        c->value = value;
        c->len = n;
        return MHD_YES;
    }
    char *grown = c->joined ? realloc(c->joined, c->len + 2 + n + 1) : malloc(c->len + 2 + n + 1);
    if (!grown) return MHD_NO;
    if (!c->joined) memcpy(grown, c->value, c->len);
    memcpy(grown + c->len, "; ", 2);
    memcpy(grown + c->len + 2, value, n + 1);
    c->joined = grown;
    c->value = grown;
    c->len += 2 + n;
    return MHD_YES;
}

/* The session of this request (NULL: none), read from the absolute URL and
 * the Cookie header alone: no request JSON built, no session JSON parsed.
 * Read its fields with auth_session_user_field; release it with
 * auth_session_free. */
static auth_session *session_of(struct MHD_Connection *conn, request_state *st) {
    const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (!host) host = "localhost";
    /* "http://" host uri, on the stack when it fits (this runs on every
     * protected request), else on the heap. */
    size_t host_len = strlen(host), uri_len = strlen(st->uri), url_len = 7 + host_len + uri_len;
    char stack[1024], *url = url_len < sizeof stack ? stack : malloc(url_len + 1);
    if (!url) return NULL;
    memcpy(url, "http://", 7);
    memcpy(url + 7, host, host_len);
    memcpy(url + 7 + host_len, st->uri, uri_len + 1);
    cookies c = {NULL, 0, NULL};
    MHD_get_connection_values(conn, MHD_HEADER_KIND, add_cookie, &c);
    auth_session *session = NULL;
    auth_error *err = NULL;
    if (auth_session_read(auth, url, url_len, c.value, c.len, &session, &err) != AUTH_OK) {
        fprintf(stderr, "session read: %s: %s\n", auth_error_type(err), auth_error_message(err));
        auth_error_free(err);
    }
    free(c.joined);
    if (url != stack) free(url);
    return session;
}

/* `n` bytes of `s` with HTML's special characters escaped, NUL-terminated
 * (malloc'd; NULL when out of memory). A NUL byte (JSON strings may hold
 * one) is dropped. */
static char *esc(const char *s, size_t n) {
    char *out = malloc(6 * n + 1), *o = out; /* room for every byte escaped */
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!s[i]) continue;
        if (strchr("&<>\"'", s[i])) o += sprintf(o, "&#%d;", s[i]);
        else *o++ = s[i];
    }
    *o = '\0';
    return out;
}

/* A string field of the session's user, escaped for HTML (malloc'd; ""
 * when the user has none, NULL when out of memory). */
static char *user_field(const auth_session *session, const char *name) {
    size_t len = 0;
    const char *value = auth_session_user_field(session, name, &len);
    return esc(value, value ? len : 0);
}

static MHD_Result_t page(struct MHD_Connection *conn, const char *title, const char *body) {
    char *html = NULL;
    if (asprintf(&html,
                 "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title></head>"
                 "<body><h1>%s</h1>%s</body></html>",
                 title, title, body) < 0)
        return MHD_NO;
    MHD_Result_t ret = send_text(conn, MHD_HTTP_OK, "text/html; charset=utf-8", html, NULL);
    free(html);
    return ret;
}

/* The protected page, for a user whose name is already escaped. */
static MHD_Result_t dashboard(struct MHD_Connection *conn, const char *name) {
    char *body = NULL;
    if (asprintf(&body, "<p id=\"dashboard\">Welcome, %s. This page is for signed-in users.</p>"
                        "<p><a href=\"/\">Home</a></p>", name) < 0)
        return MHD_NO;
    MHD_Result_t ret = page(conn, "Dashboard", body);
    free(body);
    return ret;
}

static MHD_Result_t app(struct MHD_Connection *conn, const char *path, request_state *st) {
    if (strcmp(path, "/bare") == 0) {
        /* Not part of the app: the benchmark's baseline (see the top). The
         * same bytes as /dashboard for the demo user, with no session read. */
        char *name = esc("Demo User", strlen("Demo User"));
        MHD_Result_t ret = name ? dashboard(conn, name) : MHD_NO;
        free(name);
        return ret;
    }
    int home = strcmp(path, "/") == 0;
    if (!home && strcmp(path, "/dashboard") != 0)
        return send_text(conn, MHD_HTTP_NOT_FOUND, "text/plain", "not found", NULL);
    auth_session *session = session_of(conn, st);
    if (!session)
        return home ? page(conn, "libauth C example",
                           "<p id=\"who\">Not signed in.</p><p><a id=\"signin\" href=\"/auth/signin\">Sign in</a>"
                           " (demo / demo)</p>")
                    : send_text(conn, MHD_HTTP_FOUND, "text/plain", "sign in first",
                                "/auth/signin?callbackUrl=%2Fdashboard");
    /* The name to show; a passkey user may have none: the email then. */
    char *name = user_field(session, "name");
    if (name && !*name) {
        free(name);
        name = user_field(session, "email");
    }
    char *email = home ? user_field(session, "email") : NULL;
    auth_session_free(session); /* the fields are copies: done with it */
    MHD_Result_t ret = MHD_NO;
    if (!home) {
        if (name) ret = dashboard(conn, name);
    } else {
        char *body = NULL;
        if (name && email &&
            asprintf(&body,
                     "<p id=\"who\">Signed in as %s (%s)</p>"
                     "<p><a href=\"/dashboard\">Dashboard</a> · <a href=\"/auth/signout\">Sign out</a></p>",
                     name, *email ? email : "no email") >= 0)
            ret = page(conn, "libauth C example", body);
        free(body);
    }
    free(name);
    free(email);
    return ret;
}

static MHD_Result_t on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_size, void **req_cls) {
    (void)cls;
    (void)version;
    request_state *st = *req_cls;
    if (!st) return MHD_NO;
    if (!st->started) { /* the headers: answer once the body (if any) is in */
        st->started = 1;
        return MHD_YES;
    }
    if (*upload_size > 0) { /* the body arrives in pieces */
        if (st->len + *upload_size > MAX_BODY) {
            st->too_large = 1;
        } else {
            char *grown = realloc(st->body, st->len + *upload_size + 1);
            if (!grown) return MHD_NO;
            memcpy(grown + st->len, upload_data, *upload_size);
            st->body = grown;
            st->len += *upload_size;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (st->too_large) return send_text(conn, 413, "text/plain", "request body too large", NULL);
    if (strcmp(url, "/auth") == 0 || strncmp(url, "/auth/", 6) == 0) {
        char *req = engine_request(conn, method, st);
        auth_buffer *res = NULL;
        auth_error *err = NULL;
        auth_result code = req ? auth_handle(auth, req, strlen(req), &res, &err) : AUTH_NULL_ARGUMENT;
        free(req);
        MHD_Result_t ret;
        if (code == AUTH_OK) {
            ret = send_engine_response(conn, res);
        } else if (code == AUTH_INVALID_JSON) {
            /* The URL is built from the client's Host header: one that
             * makes no absolute URL is the client's error, not ours. */
            ret = send_text(conn, MHD_HTTP_BAD_REQUEST, "text/plain", "bad request", NULL);
        } else {
            fprintf(stderr, "auth_handle: %s\n", auth_error_message(err));
            ret = send_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", "internal error", NULL);
        }
        auth_buffer_free(res);
        auth_error_free(err);
        return ret;
    }
    return app(conn, url, st);
}

int main(void) {
    int port = getenv("PORT") ? atoi(getenv("PORT")) : 8080;
    char *config = config_json();
    auth_error *err = NULL;
    auth_result code = auth_new(config, strlen(config), hook, NULL, &auth, &err);
    free(config);
    if (code != AUTH_OK) {
        /* One line naming the option, e.g. "invalid option `secret`: ..." */
        const char *option = auth_error_option(err);
        fprintf(stderr, "libauth: %s (%s%s%s)\n", auth_error_message(err), auth_error_type(err),
                option ? ", option " : "", option ? option : "");
        auth_error_free(err);
        return 1;
    }
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL, on_request, NULL,
        MHD_OPTION_THREAD_POOL_SIZE, 4u, MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL, MHD_OPTION_NOTIFY_COMPLETED,
        on_done, NULL, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "could not listen on port %d\n", port);
        auth_free(auth);
        return 1;
    }
    printf("libauth C example on http://localhost:%d/ (libauth %s)\n", port, auth_version());
    fflush(stdout);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    int sig;
    sigwait(&set, &sig);
    MHD_stop_daemon(d);
    auth_free(auth);
    return 0;
}
