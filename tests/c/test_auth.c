/* The C ABI from a real C program: round trips, every hook kind, every
 * error path, ownership. Run by tests/c/run.sh, also under valgrind and
 * with -fsanitize=address,undefined. Prints "test_auth: N passed, N failed". */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define SECRET "a-test-secret-of-at-least-thirty-two-characters"
#define ORIGIN "http://localhost:8080"

enum {
    MODE_JWT_FAILS = 1,
    MODE_SESSION_BAD_JSON = 2,
    MODE_BAD_STATUS = 4,
    MODE_SLOW_SIGNIN = 8,
    MODE_REENTER = 16,
    MODE_ADAPTER_FAILS = 32,
    MODE_SESSION_FOUND = 64,
    MODE_NOT_JSON_AFTER_USER = 128, /* authorize answers the user, then tries text that is not JSON */
    MODE_NOT_JSON_ONLY = 256,       /* authorize tries only text that is not JSON */
};

/* Texts that are not one JSON value: auth_hook_result_set refuses each. */
static const char *const NOT_JSON[] = {
    "{nope", "", " ", "undefined", "NaN", "'x'", "{\"a\":1}x", "1 2", "[1,]", "{\"a\":1", "tru", "\"open",
    "{\"a\":1}{\"b\":2}", "{'a':1}", "0x10", "+1", "[1]]", "/* c */ 1", NULL,
};

static const char *const HOOK_NAMES[] = {
    "providers.credentials.authorize", "callbacks.signIn", "callbacks.redirect", "callbacks.jwt",
    "callbacks.session", "events.signIn", "events.signOut", "events.session",
    "providers.email.sendVerificationRequest", "adapter.createVerificationToken", "adapter.getSessionAndUser",
    "adapter.getUserByEmail", NULL,
};
#define N_HOOKS 13

typedef struct {
    const auth_engine *auth; /* for the re-entrancy test */
    atomic_int mode;
    atomic_int counts[N_HOOKS]; /* the last one: any other hook */
    auth_result reentered_code;
    int reentered_status;
    char last_email_url[2048];
    char signed_in_user[256]; /* events.signIn's user.id */
    atomic_int sets_refused;  /* auth_hook_result_set calls answered AUTH_INVALID_JSON */
    atomic_int sets_accepted; /* ... answered anything else */
} host_state;

static int hook_index(const char *name) {
    for (int i = 0; HOOK_NAMES[i]; i++)
        if (strcmp(HOOK_NAMES[i], name) == 0) return i;
    return N_HOOKS - 1;
}

static int count(host_state *h, const char *name) { return atomic_load(&h->counts[hook_index(name)]); }

/* Answer with a cJSON value (consumed). */
static int32_t answer(auth_hook_result *result, cJSON *value) {
    char *json = cJSON_PrintUnformatted(value);
    auth_hook_result_set(result, json, strlen(json));
    free(json); /* libauth copied it */
    cJSON_Delete(value);
    return AUTH_HOOK_OK;
}

static int32_t hook(void *user_data, const char *name, const char *args_json, size_t args_len,
                    auth_hook_result *result) {
    host_state *h = user_data;
    int mode = atomic_load(&h->mode);
    atomic_fetch_add(&h->counts[hook_index(name)], 1);
    cJSON *args = cJSON_ParseWithLength(args_json, args_len);
    if (!args || args_json[args_len] != '\0') {
        cJSON_Delete(args);
        auth_hook_result_error(result, NULL, "the arguments are not NUL-terminated JSON", NULL);
        return AUTH_HOOK_ERROR;
    }
    int32_t status = AUTH_HOOK_OK;
    if (strcmp(name, "providers.credentials.authorize") == 0) {
        cJSON *creds = cJSON_GetObjectItem(args, "credentials");
        const char *user = cJSON_GetStringValue(cJSON_GetObjectItem(creds, "username"));
        const char *pass = cJSON_GetStringValue(cJSON_GetObjectItem(creds, "password"));
        if (mode & MODE_REENTER) {
            char *req = request_json("GET", ORIGIN "/", NULL, NULL);
            auth_buffer *buf = NULL;
            auth_error *err = NULL;
            h->reentered_code = auth_get_session(h->auth, req, strlen(req), &buf, &err);
            auth_error_free(err);
            auth_buffer_free(buf);
            free(req);
            response r;
            if (call(h->auth, "GET", ORIGIN "/auth/session", NULL, NULL, &r) == AUTH_OK) {
                h->reentered_status = r.status;
                response_free(&r);
            }
        }
        if (mode & MODE_NOT_JSON_ONLY) {
            /* No answer but the refused ones below. */
        } else if (user && pass && strcmp(user, pass) == 0) {
            cJSON *u = cJSON_CreateObject();
            cJSON_AddStringToObject(u, "id", user);
            cJSON_AddStringToObject(u, "name", user);
            char email[300];
            snprintf(email, sizeof email, "%s@example.com", user);
            cJSON_AddStringToObject(u, "email", email);
            status = answer(result, u);
        } else {
            auth_hook_result_error(result, "CredentialsSignin", "wrong password", "bad_password");
            status = AUTH_HOOK_ERROR;
        }
        if (mode & (MODE_NOT_JSON_AFTER_USER | MODE_NOT_JSON_ONLY)) {
            status = AUTH_HOOK_OK;
            for (int i = 0; NOT_JSON[i]; i++) {
                auth_result code = auth_hook_result_set(result, NOT_JSON[i], strlen(NOT_JSON[i]));
                atomic_fetch_add(code == AUTH_INVALID_JSON ? &h->sets_refused : &h->sets_accepted, 1);
            }
            /* A JSON text cut short by its length is not JSON either. */
            auth_result code = auth_hook_result_set(result, "{\"id\":\"x\"}", 5);
            atomic_fetch_add(code == AUTH_INVALID_JSON ? &h->sets_refused : &h->sets_accepted, 1);
        }
    } else if (strcmp(name, "callbacks.signIn") == 0) {
        if (mode & MODE_SLOW_SIGNIN) usleep(150 * 1000);
        status = answer(result, cJSON_CreateTrue());
    } else if (strcmp(name, "callbacks.redirect") == 0) {
        status = answer(result, cJSON_Duplicate(cJSON_GetObjectItem(args, "url"), 1));
    } else if (strcmp(name, "callbacks.jwt") == 0) {
        if (mode & MODE_JWT_FAILS) {
            auth_hook_result_error(result, NULL, "the jwt hook failed", NULL);
            status = AUTH_HOOK_ERROR;
        } else if (mode & MODE_BAD_STATUS) {
            status = 42;
        } else {
            cJSON *token = cJSON_DetachItemFromObject(args, "token");
            if (cJSON_GetObjectItem(args, "user") && !cJSON_IsNull(cJSON_GetObjectItem(args, "user")))
                cJSON_AddStringToObject(token, "role", "admin");
            status = answer(result, token);
        }
    } else if (strcmp(name, "callbacks.session") == 0) {
        if (mode & MODE_SESSION_BAD_JSON) {
            auth_hook_result_set(result, "{not json", 9);
        } else {
            cJSON *session = cJSON_DetachItemFromObject(args, "session");
            cJSON *role = cJSON_GetObjectItem(cJSON_GetObjectItem(args, "token"), "role");
            if (role) cJSON_AddItemToObject(session, "role", cJSON_Duplicate(role, 1));
            status = answer(result, session);
        }
    } else if (strcmp(name, "events.signIn") == 0) {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(args, "user"), "id"));
        snprintf(h->signed_in_user, sizeof h->signed_in_user, "%s", id ? id : "");
    } else if (strcmp(name, "providers.password.sendEmail") == 0) {
        snprintf(h->last_email_url, sizeof h->last_email_url, "%s:%s",
                 cJSON_GetStringValue(cJSON_GetObjectItem(args, "kind")) ?: "",
                 cJSON_GetStringValue(cJSON_GetObjectItem(args, "url")) ?: "");
    } else if (strcmp(name, "providers.email.sendVerificationRequest") == 0) {
        snprintf(h->last_email_url, sizeof h->last_email_url, "%s",
                 cJSON_GetStringValue(cJSON_GetObjectItem(args, "url")) ?: "");
    } else if (strcmp(name, "adapter.getSessionAndUser") == 0) {
        if (mode & MODE_ADAPTER_FAILS) {
            auth_hook_result_error(result, NULL, "database down", NULL);
            status = AUTH_HOOK_ERROR;
        } else if (mode & MODE_SESSION_FOUND) {
            const char *found = "{\"session\":{\"sessionToken\":\"tok\",\"userId\":\"u1\","
                                "\"expires\":\"2099-01-01T00:00:00.000Z\"},"
                                "\"user\":{\"id\":\"u1\",\"email\":\"db@example.com\",\"emailVerified\":null}}";
            auth_hook_result_set(result, found, strlen(found));
        }
    }
    /* Everything else (events, other adapter methods): no result (null). */
    cJSON_Delete(args);
    return status;
}

static char *config_with(const char *extra) {
    char *out = NULL;
    if (asprintf(&out, "{\"secret\":\"" SECRET "\",\"trustHost\":true%s}", extra) < 0) abort();
    return out;
}

/* auth_new on a config string; returns the engine or NULL (error checked by caller). */
static auth_engine *engine(const char *config, host_state *h, auth_error **err) {
    auth_engine *auth = NULL;
    auth_result code = auth_new(config, strlen(config), hook, h, &auth, err);
    if (code != AUTH_OK) return NULL;
    if (h) h->auth = auth;
    return auth;
}

#define CREDENTIALS_PROVIDER "{\"id\":\"credentials\",\"type\":\"credentials\"}"

/* The csrf token and cookie: GET /auth/csrf. */
static void csrf(const auth_engine *auth, char *token, size_t cap, char *jar, size_t jar_cap) {
    response r;
    call(auth, "GET", ORIGIN "/auth/csrf", NULL, NULL, &r);
    cJSON *body = cJSON_Parse(r.body);
    snprintf(token, cap, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(body, "csrfToken")) ?: "");
    cJSON_Delete(body);
    update_jar(jar, jar_cap, &r);
    response_free(&r);
}

/* POST a credentials sign-in; the response in `r`. */
static void sign_in(const auth_engine *auth, const char *user, const char *pass, char *jar, size_t jar_cap,
                    response *r) {
    char token[256];
    csrf(auth, token, sizeof token, jar, jar_cap);
    char body[1024];
    snprintf(body, sizeof body, "csrfToken=%s&username=%s&password=%s&callbackUrl=%%2Fdashboard", token, user,
             pass);
    const char *headers[] = {"content-type", "application/x-www-form-urlencoded", "cookie", jar, NULL};
    call(auth, "POST", ORIGIN "/auth/callback/credentials", headers, body, r);
    update_jar(jar, jar_cap, r);
}

/* get_session with a cookie header; returns the code, the session (or NULL) in *json. */
static auth_result session_of(const auth_engine *auth, const char *jar, cJSON **json, auth_error **err) {
    const char *headers[] = {"cookie", jar, NULL};
    char *req = request_json("GET", ORIGIN "/dashboard", headers, NULL);
    auth_buffer *buf = NULL;
    auth_result code = auth_get_session(auth, req, strlen(req), &buf, err);
    free(req);
    *json = buf ? cJSON_ParseWithLength(buf->data, buf->len) : NULL;
    auth_buffer_free(buf);
    return code;
}

/* The session both ways, auth_get_session (a request JSON) and
 * auth_get_session_by_cookie (the URL and the Cookie header): the same code,
 * the same bytes (or both NULL), the same error type. Counts one check. */
static void same_both_ways(const auth_engine *auth, const char *url, const char *cookie, const char *what) {
    const char *headers[] = {"cookie", cookie, NULL};
    char *req = request_json("GET", url, cookie ? headers : NULL, NULL);
    auth_buffer *full = NULL, *lean = NULL;
    auth_error *full_err = NULL, *lean_err = NULL;
    auth_result full_code = auth_get_session(auth, req, strlen(req), &full, &full_err);
    auth_result lean_code = auth_get_session_by_cookie(auth, url, strlen(url), cookie, cookie ? strlen(cookie) : 0,
                                                       &lean, &lean_err);
    free(req);
    int same_bytes = (!full && !lean) || (full && lean && full->len == lean->len &&
                                          memcmp(full->data, lean->data, full->len) == 0);
    int same_error = (!full_err && !lean_err) ||
                     (full_err && lean_err && strcmp(auth_error_type(full_err), auth_error_type(lean_err)) == 0);
    CHECK(full_code == lean_code && same_bytes && same_error, "%s: codes %d/%d, sessions %.*s / %.*s", what, full_code,
          lean_code, full ? (int)full->len : 4, full ? full->data : "NULL", lean ? (int)lean->len : 4,
          lean ? lean->data : "NULL");
    /* auth_session_read: the same code and error, a handle exactly when
     * there is a session, and its JSON the same bytes. */
    auth_session *handle = (auth_session *)(uintptr_t)0x1;
    auth_error *handle_err = NULL;
    auth_result handle_code = auth_session_read(auth, url, strlen(url), cookie, cookie ? strlen(cookie) : 0, &handle,
                                                &handle_err);
    if (handle_code != AUTH_OK) handle = NULL; /* nothing was written */
    size_t json_len = 0;
    const char *json = auth_session_json(handle, &json_len);
    int same_handle = handle_code == lean_code && (!lean || (json && json_len == lean->len &&
                                                            memcmp(json, lean->data, json_len) == 0)) &&
                      (lean ? handle != NULL : handle == NULL) &&
                      ((!lean_err && !handle_err) ||
                       (lean_err && handle_err && strcmp(auth_error_type(lean_err), auth_error_type(handle_err)) == 0));
    CHECK(same_handle, "%s: auth_session_read: code %d/%d, session %.*s", what, handle_code, lean_code,
          json ? (int)json_len : 4, json ? json : "NULL");
    auth_session_free(handle);
    auth_error_free(handle_err);
    auth_buffer_free(full);
    auth_buffer_free(lean);
    auth_error_free(full_err);
    auth_error_free(lean_err);
}

static void test_basics(void) {
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", AUTH_VERSION_MAJOR, AUTH_VERSION_MINOR, AUTH_VERSION_PATCH);
    CHECK(strcmp(auth_version(), v) == 0, "library %s, header %s", auth_version(), v);
    CHECK(strcmp(auth_result_name(AUTH_CREDENTIALS_SIGNIN), "CredentialsSignin") == 0, "name");
    CHECK(strcmp(auth_result_name(AUTH_OVERLOADED), "Overloaded") == 0, "name");
    CHECK(strcmp(auth_result_name(AUTH_CONFIGURATION), "Configuration") == 0, "name");
    CHECK(strcmp(auth_result_name(12345), "Unknown") == 0, "an unknown code has a name");
    /* free(NULL) is harmless for every release function. */
    auth_free(NULL);
    auth_buffer_free(NULL);
    auth_error_free(NULL);
    CHECK(auth_error_code(NULL) == AUTH_NULL_ARGUMENT, "code of NULL");
    CHECK(strcmp(auth_error_message(NULL), "") == 0, "message of NULL");
    CHECK(auth_error_option(NULL) == NULL, "option of NULL");
    CHECK(auth_hook_result_set(NULL, "1", 1) == AUTH_NULL_ARGUMENT, "setter on NULL");
    CHECK(auth_hook_result_error(NULL, NULL, "m", NULL) == AUTH_NULL_ARGUMENT, "error setter on NULL");
}

/* auth_new failing: the code, the type, the option, and nothing written. */
static void expect_refused(const char *config, size_t len, auth_hook_fn fn, auth_result code, const char *type,
                           const char *option, const char *what) {
    auth_engine *auth = (auth_engine *)(uintptr_t)0x1; /* a sentinel: must stay untouched */
    auth_error *err = NULL;
    auth_result got = auth_new(config, len, fn, NULL, &auth, &err);
    CHECK(got == code, "%s: code %d (%s), want %d: %s", what, got, auth_result_name(got), code,
          auth_error_message(err));
    CHECK(auth == (auth_engine *)(uintptr_t)0x1, "%s: nothing written on failure", what);
    CHECK(err && auth_error_code(err) == code, "%s: the error has the code", what);
    CHECK(err && strlen(auth_error_message(err)) > 0, "%s: a message", what);
    CHECK(err && strcmp(auth_error_type(err), type) == 0, "%s: type %s, want %s", what, auth_error_type(err), type);
    if (option) {
        CHECK(auth_error_option(err) && strcmp(auth_error_option(err), option) == 0, "%s: option %s, want %s", what,
              auth_error_option(err) ? auth_error_option(err) : "(null)", option);
    } else {
        CHECK(auth_error_option(err) == NULL, "%s: no option", what);
    }
    auth_error_free(err);
}

/* A value of the wrong type inside an option names the option it is in,
 * at any depth, as in the Node and Python bindings. */
static void test_nested_type_errors(void) {
    const char *cases[][2] = {
        {",\"session\":{\"strategy\":1}", "session.strategy"},
        {",\"session\":{\"maxAge\":\"long\"}", "session.maxAge"},
        {",\"jwt\":{\"maxAge\":[]}", "jwt.maxAge"},
        {",\"hooks\":{\"timeout\":\"soon\"}", "hooks.timeout"},
        {",\"hooks\":{\"maxInFlight\":-1}", "hooks.maxInFlight"},
        {",\"hooks\":{\"timeouts\":{\"callbacks.jwt\":true}}", "hooks.timeouts.callbacks.jwt"},
        {",\"pages\":{\"signIn\":7}", "pages.signIn"},
        {",\"theme\":{\"colorScheme\":\"blue\"}", "theme.colorScheme"},
        {",\"cookies\":{\"sessionToken\":{\"options\":{\"secure\":\"yes\"}}}",
         "cookies.sessionToken.options.secure"},
        {",\"redirectProxyOrigins\":[\"https://a.example\",2]", "redirectProxyOrigins[1]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *c = config_with(cases[i][0]);
        expect_refused(c, strlen(c), hook, AUTH_CONFIGURATION, "Configuration", cases[i][1], cases[i][1]);
        free(c);
    }
}

#define HOST_ADAPTER_HOOKS                                                                                    \
    "\"adapter.createUser\",\"adapter.getUser\",\"adapter.getUserByEmail\",\"adapter.getUserByAccount\","       \
    "\"adapter.updateUser\",\"adapter.deleteUser\",\"adapter.linkAccount\",\"adapter.createSession\","          \
    "\"adapter.getSessionAndUser\",\"adapter.updateSession\",\"adapter.deleteSession\""

/* A hook name the engine never calls is refused by that name wherever a C
 * host writes it: under callbacks, events or logger in the JSON (whatever
 * the value), or in hooks.implemented. And a right name under callbacks,
 * events or logger that hooks.implemented does not list is refused too:
 * JSON holds no function, so it would never be called. */
static void test_misspelt_hooks(void) {
    const char *cases[][2] = {
        {",\"callbacks\":{\"sesion\":true}", "callbacks.sesion"},
        {",\"callbacks\":{\"signin\":{}}", "callbacks.signin"},
        {",\"callbacks\":{\"JWT\":\"x\"}", "callbacks.JWT"},
        {",\"events\":{\"signout\":null}", "events.signout"},
        {",\"logger\":{\"info\":1}", "logger.info"},
        {",\"callbacks\":\"session\"", "callbacks"},
        {",\"hooks\":{\"implemented\":[\"callbacks.sesion\"]}", "callbacks.sesion"},
        {",\"hooks\":{\"implemented\":[\"callbacks.jwt\",\"callbacks.JWT\"]}", "callbacks.JWT"},
        {",\"hooks\":{\"implemented\":[\"events.signin\"]}", "events.signin"},
        {",\"hooks\":{\"implemented\":[\"logger.info\"]}", "logger.info"},
        {",\"hooks\":{\"implemented\":[\"jwt.encod\"]}", "jwt.encod"},
        {",\"hooks\":{\"implemented\":[\"session.generateSessionTokn\"]}", "session.generateSessionTokn"},
        {",\"hooks\":{\"implemented\":[\"sesion\"]}", "sesion"},
        {",\"providers\":[" CREDENTIALS_PROVIDER "],\"hooks\":{\"implemented\":[\"providers.credentials.authorize\","
         "\"providers.credentials.authorise\"]}",
         "providers.credentials.authorise"},
        {",\"adapter\":{\"type\":\"host\"},\"hooks\":{\"implemented\":[" HOST_ADAPTER_HOOKS ",\"adapter.getUsr\"]}",
         "adapter.getUsr"},
        /* Spelt right, not listed. */
        {",\"callbacks\":{\"session\":true}", "callbacks.session"},
        {",\"events\":{\"signIn\":true},\"hooks\":{\"implemented\":[\"events.signOut\"]}", "events.signIn"},
        {",\"logger\":{\"warn\":true}", "logger.warn"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *c = config_with(cases[i][0]);
        expect_refused(c, strlen(c), hook, AUTH_CONFIGURATION, "Configuration", cases[i][1], cases[i][0]);
        free(c);
    }
    /* Listed, it may also appear under callbacks. */
    char *c = config_with(",\"callbacks\":{\"jwt\":true},\"events\":{},\"hooks\":{\"implemented\":[\"callbacks.jwt\"]}");
    host_state h = {0};
    auth_error *err = NULL;
    auth_engine *auth = engine(c, &h, &err);
    CHECK(auth != NULL, "a listed hook under callbacks: %s", auth_error_message(err));
    auth_error_free(err);
    auth_free(auth);
    free(c);
}

static void test_config_errors(void) {
    expect_refused(NULL, 10, hook, AUTH_NULL_ARGUMENT, "NullArgument", NULL, "NULL config");
    expect_refused("{bad", 4, hook, AUTH_INVALID_JSON, "InvalidJson", "config", "bad JSON");
    const char *good = "{\"secret\":\"" SECRET "\"}";
    expect_refused(good, strlen(good) - 3, hook, AUTH_INVALID_JSON, "InvalidJson", "config", "a length too short");
    expect_refused(good, SIZE_MAX, hook, AUTH_INVALID_LENGTH, "InvalidLength", NULL, "an impossible length");
    const char bad_utf8[] = "{\"secret\":\"\xff\xfe\"}";
    expect_refused(bad_utf8, sizeof bad_utf8 - 1, hook, AUTH_INVALID_UTF8, "InvalidUtf8", NULL, "invalid UTF-8");
    char *c = config_with(",\"secert\":1");
    expect_refused(c, strlen(c), hook, AUTH_CONFIGURATION, "Configuration", "secert", "unknown option");
    free(c);
    const char *short_secret = "{\"secret\":\"short\"}";
    expect_refused(short_secret, strlen(short_secret), hook, AUTH_CONFIGURATION, "Configuration", "secret",
                   "short secret");
    expect_refused("{}", 2, hook, AUTH_MISSING_SECRET, "MissingSecret", "secret", "no secret");
    c = config_with(",\"hooks\":{\"implemented\":[\"callbacks.sesion\"]}");
    expect_refused(c, strlen(c), hook, AUTH_CONFIGURATION, "Configuration", "callbacks.sesion", "misspelt hook");
    free(c);
    c = config_with(",\"hooks\":{\"implemented\":\"callbacks.jwt\"}");
    expect_refused(c, strlen(c), hook, AUTH_CONFIGURATION, "Configuration", "hooks.implemented", "hooks not a list");
    free(c);
    c = config_with(",\"hooks\":{\"implemented\":[\"callbacks.jwt\"]}");
    expect_refused(c, strlen(c), NULL, AUTH_CONFIGURATION, "Configuration", "hooks.implemented", "no hook_fn");
    free(c);
    c = config_with(",\"providers\":[" CREDENTIALS_PROVIDER "]");
    expect_refused(c, strlen(c), hook, AUTH_MISSING_AUTHORIZE, "MissingAuthorize", "providers[0].authorize",
                   "credentials without authorize");
    free(c);
    test_nested_type_errors();
    test_misspelt_hooks();
    /* No auth_out: an error, not a crash. */
    auth_error *err = NULL;
    CHECK(auth_new(good, strlen(good), NULL, NULL, NULL, &err) == AUTH_NULL_ARGUMENT, "NULL auth_out");
    auth_error_free(err);
    /* No error_out: the code alone. */
    CHECK(auth_new("{", 1, NULL, NULL, NULL, NULL) == AUTH_NULL_ARGUMENT, "no error_out");
    auth_engine *auth = NULL;
    CHECK(auth_new("[1]", 3, NULL, NULL, &auth, NULL) == AUTH_CONFIGURATION && auth == NULL, "not an object");
}

/* Misuse of auth_handle / auth_get_session. */
static void test_call_errors(const auth_engine *auth) {
    const char *req = "{\"method\":\"GET\",\"url\":\"" ORIGIN "/auth/csrf\",\"headers\":[]}";
    size_t len = strlen(req);
    auth_buffer *sentinel = (auth_buffer *)(uintptr_t)0x1;
    struct {
        const auth_engine *auth;
        const char *req;
        size_t len;
        int null_out;
        auth_result code;
        const char *what;
    } cases[] = {
        {NULL, req, len, 0, AUTH_NULL_ARGUMENT, "NULL engine"},
        {auth, NULL, len, 0, AUTH_NULL_ARGUMENT, "NULL request"},
        {auth, req, len, 1, AUTH_NULL_ARGUMENT, "NULL output"},
        {auth, "{nope", 5, 0, AUTH_INVALID_JSON, "bad JSON"},
        {auth, req, len - 1, 0, AUTH_INVALID_JSON, "a length too short"},
        {auth, req, SIZE_MAX, 0, AUTH_INVALID_LENGTH, "an impossible length"},
        {auth, "{\"method\":\"G\xc3\x28\"}", 15, 0, AUTH_INVALID_UTF8, "invalid UTF-8"},
        {auth, "{\"method\":1,\"url\":\"x\"}", 22, 0, AUTH_INVALID_JSON, "not a request"},
        {auth, "{\"method\":\"GET\"}", 16, 0, AUTH_INVALID_JSON, "no url"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int which = 0; which < 2; which++) {
            auth_buffer *out = sentinel;
            auth_error *err = NULL;
            auth_result code = which == 0 ? auth_handle(cases[i].auth, cases[i].req, cases[i].len,
                                                        cases[i].null_out ? NULL : &out, &err)
                                          : auth_get_session(cases[i].auth, cases[i].req, cases[i].len,
                                                             cases[i].null_out ? NULL : &out, &err);
            const char *fn = which == 0 ? "auth_handle" : "auth_get_session";
            CHECK(code == cases[i].code, "%s, %s: code %d, want %d", fn, cases[i].what, code, cases[i].code);
            CHECK(out == sentinel, "%s, %s: nothing written", fn, cases[i].what);
            CHECK(err && strlen(auth_error_message(err)) > 0, "%s, %s: a message", fn, cases[i].what);
            auth_error_free(err);
            /* And without an error slot. */
            code = which == 0 ? auth_handle(cases[i].auth, cases[i].req, cases[i].len, NULL, NULL)
                              : auth_get_session(cases[i].auth, cases[i].req, cases[i].len, NULL, NULL);
            CHECK(code != AUTH_OK, "%s, %s: fails without error_out", fn, cases[i].what);
        }
    }
    /* The caller's buffer is only read: a request in read-only memory, reused. */
    static const char ro[] = "{\"method\":\"GET\",\"url\":\"" ORIGIN "/auth/providers\"}";
    for (int i = 0; i < 2; i++) {
        auth_buffer *out = NULL;
        CHECK(auth_handle(auth, ro, sizeof ro - 1, &out, NULL) == AUTH_OK, "read-only request %d", i);
        CHECK(out && out->data[out->len] == '\0', "the response is NUL-terminated");
        auth_buffer_free(out);
    }
}

/* The request's url must be absolute (http:// or https://, then a host):
 * anything else is AUTH_INVALID_JSON from both calls, with a message that
 * does not repeat the url (its query may hold a token), and nothing
 * written. An absolute url in any case spelling is accepted. */
static void test_urls_must_be_absolute(const auth_engine *auth) {
    const char *bad[] = {
        "", " ", "/auth/csrf", "auth/csrf", "?a=1", "#x", "//localhost:8080/auth/csrf",
        "localhost:8080/auth/csrf", "http:/localhost:8080/auth/csrf", "http:localhost/auth/csrf",
        "http:///auth/csrf", "http:\\\\localhost/auth/csrf", "http://\\\\localhost/auth/csrf", "http://", "https://?x", "http://#f",
        "http://:8080/auth/csrf", "http://a b/auth/csrf", "ftp://localhost/auth/csrf", "file:///etc/passwd",
        "mailto:a@example.com", "data:text/plain,x", "javascript:alert(1)", " http://localhost:8080/auth/csrf",
        "/auth/callback/email?token=tok-SECRET-123&email=a%40b.c", "http://localhost:8080\\auth\\csrf",
        "http://localhost:8080/auth\\csrf", "http://localhost:8080\\auth\\callback\\x?code=c&state=s&y=/auth/session",
    };
    auth_buffer *sentinel = (auth_buffer *)(uintptr_t)0x1;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *req = request_json("GET", bad[i], NULL, NULL);
        for (int which = 0; which < 2; which++) {
            const char *fn = which == 0 ? "auth_handle" : "auth_get_session";
            auth_buffer *out = sentinel;
            auth_error *err = NULL;
            auth_result code = which == 0 ? auth_handle(auth, req, strlen(req), &out, &err)
                                          : auth_get_session(auth, req, strlen(req), &out, &err);
            CHECK(code == AUTH_INVALID_JSON, "%s, url \"%s\": code %d (%s), want AUTH_INVALID_JSON", fn, bad[i], code,
                  auth_result_name(code));
            CHECK(out == sentinel, "%s, url \"%s\": nothing written", fn, bad[i]);
            CHECK(err && strstr(auth_error_message(err), "absolute") && !strstr(auth_error_message(err), "SECRET"),
                  "%s, url \"%s\": message %s", fn, bad[i], err ? auth_error_message(err) : "(none)");
            auth_error_free(err);
        }
        free(req);
    }
    const char *good[] = {ORIGIN "/auth/csrf", "HTTP://LOCALHOST:8080/auth/csrf", "https://127.0.0.1/auth/csrf",
                          "http://[::1]:8080/auth/csrf", ORIGIN "/auth/csrf?x=a\\b"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char *req = request_json("GET", good[i], NULL, NULL);
        auth_buffer *out = NULL;
        CHECK(auth_handle(auth, req, strlen(req), &out, NULL) == AUTH_OK && out, "auth_handle, url %s", good[i]);
        auth_buffer_free(out);
        out = sentinel;
        CHECK(auth_get_session(auth, req, strlen(req), &out, NULL) == AUTH_OK && out == NULL,
              "auth_get_session, url %s", good[i]);
        free(req);
    }
}

/* auth_hook_result_set refuses every text that is not one JSON value with
 * AUTH_INVALID_JSON and records nothing: after a valid answer the answer
 * stands (the sign-in succeeds); with none the result is null (authorize
 * found no user). */
static void test_hook_result_must_be_json(const auth_engine *auth, host_state *h) {
    size_t tried = 1; /* the one cut short by its length */
    while (NOT_JSON[tried - 1]) tried++;
    char jar[8192] = "";
    response r;
    atomic_store(&h->mode, MODE_NOT_JSON_AFTER_USER);
    sign_in(auth, "demo", "demo", jar, sizeof jar, &r);
    CHECK(r.status == 302 && strstr(jar, "session-token") && !strstr(header(&r, "location", 0) ?: "", "error="),
          "the answer before the refused ones stands: %d %s", r.status, header(&r, "location", 0));
    response_free(&r);
    CHECK((size_t)atomic_load(&h->sets_refused) == tried && atomic_load(&h->sets_accepted) == 0,
          "every text that is not JSON refused: %d of %zu (%d accepted)", atomic_load(&h->sets_refused), tried,
          atomic_load(&h->sets_accepted));
    char jar2[8192] = "";
    atomic_store(&h->mode, MODE_NOT_JSON_ONLY);
    sign_in(auth, "demo", "demo", jar2, sizeof jar2, &r);
    const char *loc = header(&r, "location", 0);
    CHECK(r.status == 302 && loc && strstr(loc, "error=CredentialsSignin") && !strstr(loc, "bad_password") &&
              !strstr(jar2, "session-token"),
          "only refused answers: the result is null: %d %s", r.status, loc);
    response_free(&r);
    CHECK(atomic_load(&h->sets_accepted) == 0, "nothing accepted: %d", atomic_load(&h->sets_accepted));
    atomic_store(&h->mode, 0);
}

static void test_round_trip(void) {
    host_state h = {0};
    char *c = config_with(",\"providers\":[" CREDENTIALS_PROVIDER "],"
                          "\"hooks\":{\"implemented\":[\"providers.credentials.authorize\",\"callbacks.signIn\","
                          "\"callbacks.redirect\",\"callbacks.jwt\",\"callbacks.session\",\"events.signIn\","
                          "\"events.signOut\",\"events.session\"]}");
    auth_error *err = NULL;
    auth_engine *auth = engine(c, &h, &err);
    free(c);
    CHECK(auth != NULL, "auth_new: %s", auth_error_message(err));
    auth_error_free(err);
    if (!auth) return;

    test_call_errors(auth);
    test_urls_must_be_absolute(auth);

    char jar[8192] = "";
    response r;
    sign_in(auth, "demo", "demo", jar, sizeof jar, &r);
    CHECK(r.status == 302, "sign-in status %d", r.status);
    CHECK(header(&r, "location", 0) && strcmp(header(&r, "location", 0), ORIGIN "/dashboard") == 0,
          "sign-in location %s", header(&r, "location", 0));
    CHECK(strstr(jar, "authjs.session-token=") != NULL, "a session cookie: %s", jar);
    response_free(&r);
    CHECK(count(&h, "providers.credentials.authorize") == 1, "authorize called");
    CHECK(count(&h, "callbacks.signIn") == 1, "signIn called");
    CHECK(count(&h, "callbacks.redirect") >= 1, "redirect called");
    CHECK(count(&h, "callbacks.jwt") >= 1, "jwt called");
    CHECK(count(&h, "events.signIn") == 1, "events.signIn called");

    cJSON *s = NULL;
    CHECK(session_of(auth, jar, &s, NULL) == AUTH_OK, "get_session");
    cJSON *user = cJSON_GetObjectItem(s, "user");
    CHECK(user && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(user, "name")), "demo") == 0, "session user");
    CHECK(cJSON_GetStringValue(cJSON_GetObjectItem(s, "role")) &&
              strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(s, "role")), "admin") == 0,
          "jwt and session callbacks shaped the session");
    CHECK(cJSON_GetObjectItem(s, "expires") != NULL, "expires");
    cJSON_Delete(s);
    CHECK(count(&h, "callbacks.session") >= 1, "session called");

    /* The session route. */
    const char *cookie_headers[] = {"cookie", jar, NULL};
    call(auth, "GET", ORIGIN "/auth/session", cookie_headers, NULL, &r);
    CHECK(r.status == 200 && strstr(r.body, "\"demo\""), "GET /auth/session: %d %s", r.status, r.body);
    response_free(&r);
    CHECK(count(&h, "events.session") >= 1, "events.session called");

    /* No cookie: no session, and a NULL buffer. */
    s = (cJSON *)1;
    CHECK(session_of(auth, "", &s, NULL) == AUTH_OK && s == NULL, "no session");
    /* A tampered cookie: no session. */
    CHECK(session_of(auth, "authjs.session-token=eyJhbGciOiJkaXIi.x.y.z.w", &s, NULL) == AUTH_OK && s == NULL,
          "tampered cookie");

    /* authorize refuses with CredentialsSignin and a code. */
    char jar2[8192] = "";
    sign_in(auth, "demo", "wrong", jar2, sizeof jar2, &r);
    const char *loc = header(&r, "location", 0);
    CHECK(r.status == 302 && loc && strstr(loc, "error=CredentialsSignin") && strstr(loc, "code=bad_password"),
          "refused sign-in: %d %s", r.status, loc);
    CHECK(strstr(jar2, "authjs.session-token=") == NULL, "no session cookie after a refusal");
    response_free(&r);

    /* A failing jwt hook: sign-in ends on the error page, no session. */
    atomic_store(&h.mode, MODE_JWT_FAILS);
    char jar3[8192] = "";
    sign_in(auth, "demo", "demo", jar3, sizeof jar3, &r);
    loc = header(&r, "location", 0);
    CHECK(r.status == 302 && loc && strstr(loc, "/auth/error") && strstr(jar3, "session-token") == NULL,
          "failing jwt hook: %d %s", r.status, loc);
    response_free(&r);
    /* ... and a hook returning an unknown status fails the same way. */
    atomic_store(&h.mode, MODE_BAD_STATUS);
    char jar4[8192] = "";
    sign_in(auth, "demo", "demo", jar4, sizeof jar4, &r);
    loc = header(&r, "location", 0);
    CHECK(r.status == 302 && loc && strstr(loc, "/auth/error"), "unknown hook status: %d %s", r.status, loc);
    response_free(&r);
    /* A session hook returning bad JSON: no session (as a throwing session callback). */
    atomic_store(&h.mode, MODE_SESSION_BAD_JSON);
    s = (cJSON *)1;
    auth_result code = session_of(auth, jar, &s, &err);
    CHECK(code == AUTH_OK && s == NULL, "bad JSON from the session hook: code %d", code);
    atomic_store(&h.mode, 0);

    /* Sign out. */
    char token[256];
    csrf(auth, token, sizeof token, jar, sizeof jar);
    char body[512];
    snprintf(body, sizeof body, "csrfToken=%s", token);
    const char *post[] = {"content-type", "application/x-www-form-urlencoded", "cookie", jar, NULL};
    call(auth, "POST", ORIGIN "/auth/signout", post, body, &r);
    CHECK(r.status == 302, "sign-out status %d", r.status);
    update_jar(jar, sizeof jar, &r);
    response_free(&r);
    CHECK(count(&h, "events.signOut") == 1, "events.signOut called");
    CHECK(strstr(jar, "session-token") == NULL, "sign-out cleared the cookie: %s", jar);

    test_hook_result_must_be_json(auth, &h);
    auth_free(auth);
}

/* auth_get_session_by_cookie: the answer of auth_get_session for every
 * kind of cookie (signed in and shaped by the jwt and session hooks, none,
 * empty, tampered, of a rotated-out secret, among other cookies, on a
 * secure URL), and its arguments checked like every call's. (Expired
 * cookies, chunked ones and any mix: core's property test, which runs both
 * calls' one read path; database sessions: test_email_and_adapter.) */
static void test_session_by_cookie(void) {
    host_state h = {0};
    char *c = config_with(",\"providers\":[" CREDENTIALS_PROVIDER "],"
                          "\"hooks\":{\"implemented\":[\"providers.credentials.authorize\",\"callbacks.jwt\","
                          "\"callbacks.session\"]}");
    auth_engine *auth = engine(c, &h, NULL);
    free(c);
    char *other_config = strdup("{\"secret\":\"another-test-secret-of-at-least-thirty-two-chars\",\"trustHost\":true}");
    auth_engine *rotated = engine(other_config, NULL, NULL);
    free(other_config);
    CHECK(auth && rotated, "engines");
    if (!auth || !rotated) return;
    char jar[8192] = "";
    response r;
    sign_in(auth, "demo", "demo", jar, sizeof jar, &r);
    response_free(&r);
    CHECK(strstr(jar, "authjs.session-token=") != NULL, "signed in: %s", jar);

    auth_buffer *out = NULL;
    const char *url = ORIGIN "/dashboard";
    CHECK(auth_get_session_by_cookie(auth, url, strlen(url), jar, strlen(jar), &out, NULL) == AUTH_OK && out &&
              strstr(out->data, "\"demo\"") && strstr(out->data, "\"admin\"") && out->data[out->len] == '\0',
          "the session, shaped by the hooks: %s", out ? out->data : "NULL");
    auth_buffer_free(out);

    char tampered[8192], among[8300], tail_cut[8192];
    snprintf(tampered, sizeof tampered, "%s", jar);
    char *value = strstr(tampered, "authjs.session-token=") + strlen("authjs.session-token=");
    value[10] = value[10] == 'A' ? 'B' : 'A';
    snprintf(among, sizeof among, "theme=dark; %s; a=\"1\"", jar);
    snprintf(tail_cut, sizeof tail_cut, "%.*s", (int)strlen(jar) - 3, jar);
    struct {
        const auth_engine *auth;
        const char *url, *cookie, *what;
    } cases[] = {
        {auth, url, jar, "signed in"},
        {auth, url, NULL, "no Cookie header"},
        {auth, url, "", "an empty Cookie header"},
        {auth, url, tampered, "a tampered cookie"},
        {auth, url, tail_cut, "a cut cookie"},
        {auth, url, among, "among other cookies"},
        {auth, "https://localhost:8080/dashboard", jar, "a plain cookie on a secure URL"},
        {auth, "HTTP://LOCALHOST:8080/x?y=1", jar, "an upper-case URL"},
        {auth, url, "authjs.session-token=eyJhbGciOiJkaXIi.x.y.z.w", "garbage"},
        {rotated, url, jar, "a rotated-out secret"},
        {auth, "/dashboard", jar, "a relative URL"},
        {auth, "ftp://localhost/x", jar, "another scheme"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        same_both_ways(cases[i].auth, cases[i].url, cases[i].cookie, cases[i].what);
    CHECK(count(&h, "callbacks.session") >= 2, "the session hook ran for both calls");

    /* Misuse: a code, a message, nothing written. */
    auth_buffer *sentinel = (auth_buffer *)(uintptr_t)0x1;
    struct {
        const auth_engine *auth;
        const char *url;
        size_t url_len;
        const char *cookie;
        size_t cookie_len;
        int null_out;
        auth_result code;
        const char *what;
    } bad[] = {
        {NULL, url, strlen(url), jar, strlen(jar), 0, AUTH_NULL_ARGUMENT, "NULL engine"},
        {auth, NULL, 5, jar, strlen(jar), 0, AUTH_NULL_ARGUMENT, "NULL url"},
        {auth, url, strlen(url), NULL, 4, 0, AUTH_NULL_ARGUMENT, "NULL cookie with a length"},
        {auth, url, strlen(url), jar, strlen(jar), 1, AUTH_NULL_ARGUMENT, "NULL output"},
        {auth, url, SIZE_MAX, jar, strlen(jar), 0, AUTH_INVALID_LENGTH, "an impossible url length"},
        {auth, url, strlen(url), jar, SIZE_MAX, 0, AUTH_INVALID_LENGTH, "an impossible cookie length"},
        {auth, "http://x/\xc3\x28", 11, jar, strlen(jar), 0, AUTH_INVALID_UTF8, "a url not UTF-8"},
        {auth, url, strlen(url), "a=\xc3\x28", 4, 0, AUTH_INVALID_UTF8, "a cookie not UTF-8"},
        {auth, "/dashboard?token=SECRET", 23, jar, strlen(jar), 0, AUTH_INVALID_JSON, "a relative url"},
        {auth, "http:///x", 9, jar, strlen(jar), 0, AUTH_INVALID_JSON, "no host"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        auth_buffer *o = sentinel;
        auth_error *err = NULL;
        auth_result code = auth_get_session_by_cookie(bad[i].auth, bad[i].url, bad[i].url_len, bad[i].cookie,
                                                      bad[i].cookie_len, bad[i].null_out ? NULL : &o, &err);
        CHECK(code == bad[i].code, "%s: code %d (%s), want %d", bad[i].what, code, auth_result_name(code), bad[i].code);
        CHECK(o == sentinel, "%s: nothing written", bad[i].what);
        CHECK(err && strlen(auth_error_message(err)) > 0 && !strstr(auth_error_message(err), "SECRET"),
              "%s: a message without the url: %s", bad[i].what, err ? auth_error_message(err) : "(none)");
        auth_error_free(err);
        CHECK(auth_get_session_by_cookie(bad[i].auth, bad[i].url, bad[i].url_len, bad[i].cookie, bad[i].cookie_len,
                                         NULL, NULL) != AUTH_OK,
              "%s: fails without error_out", bad[i].what);
        /* auth_session_read checks its arguments alike. */
        auth_session *handle = (auth_session *)(uintptr_t)0x1;
        err = NULL;
        code = auth_session_read(bad[i].auth, bad[i].url, bad[i].url_len, bad[i].cookie, bad[i].cookie_len,
                                 bad[i].null_out ? NULL : &handle, &err);
        CHECK(code == bad[i].code && handle == (auth_session *)(uintptr_t)0x1 && err &&
                  strlen(auth_error_message(err)) > 0 && !strstr(auth_error_message(err), "SECRET"),
              "%s: auth_session_read: code %d (%s), want %d; %s", bad[i].what, code, auth_result_name(code),
              bad[i].code, err ? auth_error_message(err) : "(no error)");
        auth_error_free(err);
    }
    auth_free(auth);
    auth_free(rotated);
}

/* The fields of a session handle, `want` NULL for none. Counts one check. */
static void expect_field(const auth_session *s, const char *key, const char *subkey, const char *want,
                         const char *what) {
    size_t len = 12345;
    const char *got = auth_session_string(s, key, subkey, &len);
    int ok = want ? got && len == strlen(want) && memcmp(got, want, len) == 0 : !got && len == 12345;
    CHECK(ok, "%s: %s.%s is %.*s, want %s", what, key, subkey ? subkey : "", got ? (int)len : 4, got ? got : "NULL",
          want ? want : "NULL");
}

/* auth_session_read and the handle's accessors, on an engine with session
 * hooks (a session built for each read) and one without (the handle shares
 * the session cache's copy): the fields, absent ones, the expiry, the JSON,
 * NULL arguments, a handle kept over many reads and past auth_free. (Its
 * answers for every kind of cookie and its misuse codes: test_session_by_cookie,
 * through same_both_ways; many threads: test_threads.) */
static void test_session_handle(void) {
    host_state h = {0};
    char *hooked_config = config_with(",\"providers\":[" CREDENTIALS_PROVIDER "],"
                                      "\"hooks\":{\"implemented\":[\"providers.credentials.authorize\","
                                      "\"callbacks.jwt\",\"callbacks.session\"]}");
    char *plain_config = config_with(",\"providers\":[" CREDENTIALS_PROVIDER "],"
                                     "\"hooks\":{\"implemented\":[\"providers.credentials.authorize\"]}");
    struct {
        auth_engine *auth;
        int hooked;
    } engines[] = {{engine(hooked_config, &h, NULL), 1}, {engine(plain_config, &h, NULL), 0}};
    free(hooked_config);
    free(plain_config);
    const char *url = ORIGIN "/dashboard";
    for (size_t e = 0; e < 2; e++) {
        auth_engine *auth = engines[e].auth;
        const char *what = engines[e].hooked ? "session hooks" : "no session hooks";
        CHECK(auth, "%s: engine", what);
        if (!auth) continue;
        char jar[8192] = "";
        response r;
        sign_in(auth, "demo", "demo", jar, sizeof jar, &r);
        response_free(&r);

        auth_session *s = NULL;
        auth_error *err = NULL;
        CHECK(auth_session_read(auth, url, strlen(url), jar, strlen(jar), &s, &err) == AUTH_OK && s && !err,
              "%s: signed in: a handle (%s)", what, err ? auth_error_message(err) : "no error");
        auth_error_free(err);
        if (!s) continue;
        size_t len = 0;
        const char *name = auth_session_user_field(s, "name", &len);
        CHECK(name && len == 4 && memcmp(name, "demo", 4) == 0, "%s: user.name %.*s", what, name ? (int)len : 4,
              name ? name : "NULL");
        const char *email = auth_session_user_field(s, "email", &len);
        CHECK(email && len == strlen("demo@example.com") && memcmp(email, "demo@example.com", len) == 0,
              "%s: user.email", what);
        expect_field(s, "user", "name", "demo", what);
        expect_field(s, "user", "image", NULL, what);  /* absent */
        expect_field(s, "user", "nAme", NULL, what);   /* keys are matched exactly */
        expect_field(s, "user", "", NULL, what);
        expect_field(s, "user", NULL, NULL, what);     /* an object, not a string */
        expect_field(s, "expires", "x", NULL, what);   /* a string, not an object */
        expect_field(s, "nothing", NULL, NULL, what);
        expect_field(s, "role", NULL, engines[e].hooked ? "admin" : NULL, what); /* added by the session hook */
        const char *expires = auth_session_string(s, "expires", NULL, &len);
        CHECK(expires && len == 24 && expires[23] == 'Z', "%s: expires %.*s", what, expires ? (int)len : 4,
              expires ? expires : "NULL");
        int64_t until = auth_session_expires(s), now = (int64_t)time(NULL);
        CHECK(until > now + 29 * 86400 && until <= now + 30 * 86400 + 5, "%s: expires in 30 days: %lld (now %lld)",
              what, (long long)until, (long long)now);

        /* The JSON: what auth_get_session_by_cookie answers, the same text on every call. */
        auth_buffer *buf = NULL;
        auth_get_session_by_cookie(auth, url, strlen(url), jar, strlen(jar), &buf, NULL);
        size_t json_len = 0, again_len = 0;
        const char *json = auth_session_json(s, &json_len);
        const char *again = auth_session_json(s, &again_len);
        CHECK(buf && json && json_len == buf->len && memcmp(json, buf->data, json_len) == 0 && again == json &&
                  again_len == json_len,
              "%s: the JSON %.*s", what, json ? (int)json_len : 4, json ? json : "NULL");
        auth_buffer_free(buf);

        /* NULL arguments: NULL (or -1), nothing written, no crash. */
        size_t untouched = 12345;
        CHECK(!auth_session_user_field(NULL, "name", &untouched) && !auth_session_user_field(s, NULL, &untouched) &&
                  !auth_session_user_field(s, "name", NULL) && !auth_session_string(s, NULL, "name", &untouched) &&
                  !auth_session_string(NULL, "user", "name", &untouched) && !auth_session_json(NULL, &untouched) &&
                  !auth_session_json(s, NULL) && untouched == 12345 && auth_session_expires(NULL) == -1,
              "%s: NULL arguments", what);
        auth_session_free(NULL);

        /* Without a session: AUTH_OK and NULL, no error. */
        char tampered[8192];
        snprintf(tampered, sizeof tampered, "%s", jar);
        char *value = strstr(tampered, "authjs.session-token=") + strlen("authjs.session-token=");
        value[10] = value[10] == 'A' ? 'B' : 'A';
        const char *none[] = {NULL, "", "theme=dark", tampered};
        for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
            auth_session *o = (auth_session *)(uintptr_t)0x1;
            err = NULL;
            auth_result code = auth_session_read(auth, url, strlen(url), none[i], none[i] ? strlen(none[i]) : 0, &o,
                                                 &err);
            CHECK(code == AUTH_OK && o == NULL && err == NULL, "%s: no session (%zu): code %d", what, i, code);
            auth_error_free(err);
        }

        /* A handle kept while many more are read and freed: unchanged. A
         * session the cache holds is shared, not copied: two handles of
         * one cached cookie point at the same bytes. */
        int same = 1, shared = 1;
        auth_session *previous = NULL;
        for (int i = 0; i < 1000; i++) {
            auth_session *other = NULL;
            auth_session_read(auth, url, strlen(url), jar, strlen(jar), &other, NULL);
            size_t other_len = 0;
            const char *other_name = auth_session_user_field(other, "name", &other_len);
            same &= other_name && other_len == 4 && memcmp(other_name, "demo", 4) == 0;
            if (previous) shared &= other_name == auth_session_user_field(previous, "name", &len);
            auth_session_free(previous);
            previous = other;
        }
        auth_session_free(previous);
        name = auth_session_user_field(s, "name", &len);
        CHECK(same && name && len == 4 && memcmp(name, "demo", 4) == 0, "%s: a handle kept over 1000 reads", what);
        CHECK(engines[e].hooked ? !shared : shared, "%s: handles %s the cache's session", what,
              engines[e].hooked ? "do not share" : "share");

        /* A handle outlives its engine. */
        auth_free(auth);
        engines[e].auth = NULL;
        name = auth_session_user_field(s, "name", &len);
        json = auth_session_json(s, &json_len);
        CHECK(name && len == 4 && memcmp(name, "demo", 4) == 0 && json && json_len > 0 && json[0] == '{',
              "%s: a handle read after auth_free", what);
        auth_session_free(s);
    }
    for (size_t e = 0; e < 2; e++) auth_free(engines[e].auth);
}

/* auth_passkeys: a passkey provider needs experimental.enableWebAuthn
 * (AUTH_EXPERIMENTAL_FEATURE_NOT_ENABLED, naming the option); list answers
 * JSON; a passkey that is not the user's is
 * AUTH_WEB_AUTHN_VERIFICATION_ERROR; bad JSON and NULLs are refused.
 * (Registration and sign-in with a real authenticator: the C server
 * example's browser test, bindings/node/test/passkeys-browser.test.mjs.) */
static void test_passkeys(void) {
    auth_error *err = NULL;
    char *c = config_with(",\"adapter\":{\"type\":\"memory\"},\"providers\":[{\"type\":\"webauthn\"}]");
    CHECK(engine(c, NULL, &err) == NULL, "a passkey provider without the experimental flag is refused");
    CHECK(err && auth_error_code(err) == AUTH_EXPERIMENTAL_FEATURE_NOT_ENABLED, "code %d",
          err ? (int)auth_error_code(err) : -1);
    CHECK(err && auth_error_option(err) && strcmp(auth_error_option(err), "experimental.enableWebAuthn") == 0,
          "the option is named");
    auth_error_free(err);
    free(c);

    c = config_with(",\"experimental\":{\"enableWebAuthn\":true},\"adapter\":{\"type\":\"memory\"},"
                    "\"providers\":[{\"type\":\"webauthn\"}]");
    host_state h = {0};
    err = NULL;
    auth_engine *auth = engine(c, &h, &err);
    free(c);
    CHECK(auth != NULL, "engine: %s", err ? auth_error_message(err) : "-");
    auth_error_free(err);
    if (!auth) return;
    const char *list = "{\"action\":\"list\"}";
    auth_buffer *out = NULL;
    CHECK(auth_passkeys(auth, "ada", 3, list, strlen(list), &out, NULL) == AUTH_OK, "list");
    CHECK(out && out->len == 2 && memcmp(out->data, "[]", 2) == 0, "no passkeys: []");
    auth_buffer_free(out);
    const char *del = "{\"action\":\"delete\",\"id\":\"Y3JlZC0x\"}";
    err = NULL;
    out = NULL;
    auth_result code = auth_passkeys(auth, "ada", 3, del, strlen(del), &out, &err);
    CHECK(code == AUTH_WEB_AUTHN_VERIFICATION_ERROR, "not ada's passkey: code %d", code);
    CHECK(err && strcmp(auth_error_type(err), "WebAuthnVerificationError") == 0, "type");
    CHECK(out == NULL, "nothing written");
    auth_error_free(err);
    CHECK(auth_passkeys(auth, "ada", 3, "{", 1, &out, NULL) == AUTH_INVALID_JSON, "bad JSON");
    CHECK(auth_passkeys(auth, "ada", 3, list, strlen(list), NULL, NULL) == AUTH_NULL_ARGUMENT, "NULL result_out");
    CHECK(auth_passkeys(NULL, "ada", 3, list, strlen(list), &out, NULL) == AUTH_NULL_ARGUMENT, "NULL engine");
    auth_free(auth);
}

/* auth_sessions: a user's database sessions from C. JWT sessions are
 * AUTH_UNSUPPORTED_STRATEGY; a user without sessions lists []; an id that
 * is not theirs is AUTH_SESSION_TOKEN_ERROR; endAll answers the count; bad
 * JSON and NULLs are refused. (Sessions made by sign-ins, listed and ended:
 * core/tests/user_sessions.rs and the Node and Python tests.) */
/* A user's second factor through auth_two_factor: the status as JSON, the
 * typed codes for a refusal (no stored user, an unknown action, a code when
 * none is on). (Enrolment with real codes: core/tests/two_factor.rs and the
 * Node and Python tests.) */
static void test_two_factor(void) {
    auth_error *err = NULL;
    auth_buffer *out = NULL;
    char *c = config_with(",\"adapter\":{\"type\":\"memory\"}");
    auth_engine *auth = engine(c, NULL, &err);
    free(c);
    CHECK(auth != NULL, "engine: %s", err ? auth_error_message(err) : "-");
    auth_error_free(err);
    if (!auth) return;
    const char *status = "{\"action\":\"status\"}";
    CHECK(auth_two_factor(auth, "ada", 3, status, strlen(status), &out, NULL) == AUTH_OK, "status");
    const char *off = "{\"enabled\":false,\"pending\":false,\"enabledAt\":null,\"recoveryCodesLeft\":0}";
    CHECK(out && out->len == strlen(off) && memcmp(out->data, off, out->len) == 0, "off: %s", out ? out->data : "-");
    auth_buffer_free(out);
    out = NULL;
    struct {
        const char *call;
        auth_result code;
    } refusals[] = {
        {"{\"action\":\"begin\",\"label\":\"ada\"}", AUTH_ADAPTER_ERROR},
        {"{\"action\":\"verify\",\"code\":\"123456\"}", AUTH_TWO_FACTOR_ERROR},
        {"{\"action\":\"sms\"}", AUTH_UNKNOWN_ACTION},
        {"{", AUTH_INVALID_JSON},
    };
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        err = NULL;
        auth_result code = auth_two_factor(auth, "ada", 3, refusals[i].call, strlen(refusals[i].call), &out, &err);
        CHECK(code == refusals[i].code, "%s: code %d", refusals[i].call, code);
        CHECK(out == NULL, "%s: nothing written", refusals[i].call);
        auth_error_free(err);
    }
    auth_free(auth);
}

static void test_user_sessions(void) {
    auth_error *err = NULL;
    const char *list = "{\"action\":\"list\"}";
    auth_buffer *out = NULL;
    char *c = config_with(",\"adapter\":{\"type\":\"memory\"},\"session\":{\"strategy\":\"jwt\"}");
    auth_engine *jwt = engine(c, NULL, &err);
    free(c);
    CHECK(jwt != NULL, "jwt engine: %s", err ? auth_error_message(err) : "-");
    auth_error_free(err);
    if (!jwt) return;
    err = NULL;
    CHECK(auth_sessions(jwt, "ada", 3, list, strlen(list), &out, &err) == AUTH_UNSUPPORTED_STRATEGY,
          "JWT sessions are not listed");
    CHECK(err && strcmp(auth_error_type(err), "UnsupportedStrategy") == 0, "type");
    CHECK(out == NULL, "nothing written");
    auth_error_free(err);
    /* Ending all of them is a sign-out time: nothing stored to count. */
    const char *end_all = "{\"action\":\"endAll\"}";
    CHECK(auth_sessions(jwt, "ada", 3, end_all, strlen(end_all), &out, NULL) == AUTH_OK, "JWT sessions end all");
    CHECK(out && out->len == 11 && memcmp(out->data, "{\"ended\":0}", 11) == 0, "none stored to count");
    auth_buffer_free(out);
    out = NULL;
    auth_free(jwt);

    err = NULL;
    c = config_with(",\"adapter\":{\"type\":\"memory\"},\"session\":{\"strategy\":\"database\"}");
    auth_engine *auth = engine(c, NULL, &err);
    free(c);
    CHECK(auth != NULL, "database engine: %s", err ? auth_error_message(err) : "-");
    auth_error_free(err);
    if (!auth) return;
    CHECK(auth_sessions(auth, "ada", 3, list, strlen(list), &out, NULL) == AUTH_OK, "list");
    CHECK(out && out->len == 2 && memcmp(out->data, "[]", 2) == 0, "no sessions: []");
    auth_buffer_free(out);
    out = NULL;
    const char *end = "{\"action\":\"end\",\"id\":\"00\"}";
    err = NULL;
    auth_result code = auth_sessions(auth, "ada", 3, end, strlen(end), &out, &err);
    CHECK(code == AUTH_SESSION_TOKEN_ERROR, "not one of ada's sessions: code %d", code);
    CHECK(err && strcmp(auth_error_type(err), "SessionTokenError") == 0, "type");
    CHECK(out == NULL, "nothing written");
    auth_error_free(err);
    const char *all = "{\"action\":\"endAll\"}";
    CHECK(auth_sessions(auth, "ada", 3, all, strlen(all), &out, NULL) == AUTH_OK, "endAll");
    CHECK(out && out->len == 11 && memcmp(out->data, "{\"ended\":0}", 11) == 0, "nothing to end");
    auth_buffer_free(out);
    out = NULL;
    CHECK(auth_sessions(auth, "ada", 3, "{", 1, &out, NULL) == AUTH_INVALID_JSON, "bad JSON");
    CHECK(auth_sessions(auth, "ada", 3, list, strlen(list), NULL, NULL) == AUTH_NULL_ARGUMENT, "NULL result_out");
    CHECK(auth_sessions(NULL, "ada", 3, list, strlen(list), &out, NULL) == AUTH_NULL_ARGUMENT, "NULL engine");
    auth_free(auth);
}

/* auth_password_action: the password provider's steps from C, with the
 * mail through the C hook; a refused password is AUTH_PASSWORD_REFUSED
 * (type PasswordRefused, the reason in the message), a bad address
 * AUTH_INVALID_EMAIL, an unknown action AUTH_UNKNOWN_ACTION. (The routes
 * and pages: core/tests/password_accounts.rs and the browser tests.) */
static void test_password_actions(void) {
    host_state h = {0};
    auth_error *err = NULL;
    char *c = config_with(",\"adapter\":{\"type\":\"memory\"},\"session\":{\"strategy\":\"database\"},"
                          "\"providers\":[{\"type\":\"password\",\"argon2\":{\"memoryKib\":64,\"iterations\":1}}],"
                          "\"hooks\":{\"implemented\":[\"providers.password.sendEmail\"]}");
    auth_engine *auth = engine(c, &h, &err);
    free(c);
    CHECK(auth != NULL, "password engine: %s", err ? auth_error_message(err) : "-");
    auth_error_free(err);
    if (!auth) return;
    char *req = request_json("POST", ORIGIN "/account/signup", NULL, NULL);
    const char *short_pw = "{\"email\":\"ada@example.com\",\"password\":\"short\"}";
    auth_buffer *out = NULL;
    err = NULL;
    auth_result code = auth_password_action(auth, "signUp", 6, req, strlen(req), short_pw, strlen(short_pw), &out, &err);
    CHECK(code == AUTH_PASSWORD_REFUSED, "a short password: code %d", code);
    CHECK(err && strcmp(auth_error_type(err), "PasswordRefused") == 0 && strstr(auth_error_message(err), "at least 8"),
          "type and reason: %s", err ? auth_error_message(err) : "-");
    CHECK(out == NULL, "nothing written");
    auth_error_free(err);
    const char *bad_email = "{\"email\":\"ada\",\"password\":\"long enough\"}";
    code = auth_password_action(auth, "signUp", 6, req, strlen(req), bad_email, strlen(bad_email), &out, NULL);
    CHECK(code == AUTH_INVALID_EMAIL, "not an address: code %d", code);
    const char *good = "{\"email\":\"ada@example.com\",\"password\":\"long enough\"}";
    code = auth_password_action(auth, "signUp", 6, req, strlen(req), good, strlen(good), &out, NULL);
    CHECK(code == AUTH_OK, "sign-up: code %d", code);
    cJSON *result = out ? cJSON_ParseWithLength((const char *)out->data, out->len) : NULL;
    const char *url = cJSON_GetStringValue(cJSON_GetObjectItem(result, "url"));
    CHECK(url && strstr(url, "/auth/verify-request"), "where next: %s", url ? url : "-");
    CHECK(strncmp(h.last_email_url, "verify-email:" ORIGIN "/auth/password/verify?token=", 50) == 0,
          "the link went through the hook: %s", h.last_email_url);
    cJSON_Delete(result);
    auth_buffer_free(out);
    CHECK(auth_password_action(auth, "signIn", 6, req, strlen(req), good, strlen(good), &out, NULL) ==
              AUTH_UNKNOWN_ACTION,
          "not a password action");
    CHECK(auth_password_action(auth, "signUp", 6, req, strlen(req), "[1]", 3, &out, NULL) == AUTH_INVALID_JSON,
          "fields must be an object");
    CHECK(auth_password_action(auth, "signUp", 6, req, strlen(req), good, strlen(good), NULL, NULL) ==
              AUTH_NULL_ARGUMENT,
          "NULL result_out");
    free(req);
    auth_free(auth);
}

static void test_deadline_and_admission(void) {
    /* hooks.timeouts: a signIn hook slower than its deadline fails the sign-in. */
    host_state h = {0};
    char *c = config_with(",\"providers\":[" CREDENTIALS_PROVIDER "],\"hooks\":{\"implemented\":["
                          "\"providers.credentials.authorize\",\"callbacks.signIn\"],"
                          "\"timeouts\":{\"callbacks.signIn\":0.05}}");
    auth_engine *auth = engine(c, &h, NULL);
    free(c);
    CHECK(auth != NULL, "deadline engine");
    if (auth) {
        atomic_store(&h.mode, MODE_SLOW_SIGNIN);
        char jar[8192] = "";
        response r;
        sign_in(auth, "demo", "demo", jar, sizeof jar, &r);
        const char *loc = header(&r, "location", 0);
        CHECK(loc && strstr(loc, "error=AccessDenied") && !strstr(jar, "session-token"),
              "a late signIn hook is a refusal: %s", loc);
        response_free(&r);
        auth_free(auth);
    }

    /* hooks.maxInFlight 1: while a sign-in is inside a hook, another request
     * that may reach a hook is refused at once. */
    host_state h2 = {0};
    c = config_with(",\"providers\":[" CREDENTIALS_PROVIDER "],\"hooks\":{\"implemented\":["
                    "\"providers.credentials.authorize\",\"callbacks.jwt\"],\"maxInFlight\":1}");
    auth = engine(c, &h2, NULL);
    free(c);
    CHECK(auth != NULL, "admission engine");
    if (auth) {
        atomic_store(&h2.mode, MODE_REENTER);
        char jar[8192] = "";
        response r;
        sign_in(auth, "demo", "demo", jar, sizeof jar, &r);
        CHECK(r.status == 302 && strstr(jar, "session-token"), "the admitted sign-in completes");
        response_free(&r);
        CHECK(h2.reentered_code == AUTH_OVERLOADED, "get_session past maxInFlight: %d", h2.reentered_code);
        CHECK(h2.reentered_status == 503, "handle past maxInFlight: %d", h2.reentered_status);
        /* Once it finished, the place is free again. */
        atomic_store(&h2.mode, 0);
        cJSON *s = NULL;
        CHECK(session_of(auth, jar, &s, NULL) == AUTH_OK && s != NULL, "admitted again afterwards");
        cJSON_Delete(s);
        auth_free(auth);
    }
}

static void test_email_and_adapter(void) {
    host_state h = {0};
    char *c = config_with(
        ",\"providers\":[{\"id\":\"email\",\"type\":\"email\",\"from\":\"auth@example.com\"}],"
        "\"adapter\":{\"type\":\"host\"},"
        "\"hooks\":{\"implemented\":[\"providers.email.sendVerificationRequest\","
        "\"adapter.createUser\",\"adapter.getUser\",\"adapter.getUserByEmail\",\"adapter.getUserByAccount\","
        "\"adapter.updateUser\",\"adapter.deleteUser\",\"adapter.linkAccount\",\"adapter.createSession\","
        "\"adapter.getSessionAndUser\",\"adapter.updateSession\",\"adapter.deleteSession\","
        "\"adapter.createVerificationToken\",\"adapter.useVerificationToken\"]}");
    auth_error *err = NULL;
    auth_engine *auth = engine(c, &h, &err);
    free(c);
    CHECK(auth != NULL, "email engine: %s", auth_error_message(err));
    auth_error_free(err);
    if (!auth) return;
    char jar[8192] = "", token[256], body[512];
    csrf(auth, token, sizeof token, jar, sizeof jar);
    snprintf(body, sizeof body, "csrfToken=%s&email=someone%%40example.com", token);
    const char *post[] = {"content-type", "application/x-www-form-urlencoded", "cookie", jar, NULL};
    response r;
    call(auth, "POST", ORIGIN "/auth/signin/email", post, body, &r);
    CHECK(r.status == 302 && strstr(header(&r, "location", 0) ?: "", "verify-request"), "email sign-in: %d %s",
          r.status, header(&r, "location", 0));
    response_free(&r);
    CHECK(count(&h, "adapter.createVerificationToken") == 1, "adapter.createVerificationToken called");
    CHECK(count(&h, "providers.email.sendVerificationRequest") == 1, "sendVerificationRequest called");
    CHECK(strstr(h.last_email_url, ORIGIN "/auth/callback/email?") != NULL, "the link: %s", h.last_email_url);

    /* Database sessions through adapter hooks. */
    cJSON *s = (cJSON *)1;
    CHECK(session_of(auth, "authjs.session-token=tok", &s, NULL) == AUTH_OK && s == NULL, "no such session");
    atomic_store(&h.mode, MODE_SESSION_FOUND);
    CHECK(session_of(auth, "authjs.session-token=tok", &s, NULL) == AUTH_OK && s != NULL, "a database session");
    cJSON *email = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "user"), "email");
    CHECK(email && strcmp(cJSON_GetStringValue(email), "db@example.com") == 0, "its user");
    cJSON_Delete(s);
    atomic_store(&h.mode, MODE_ADAPTER_FAILS);
    s = NULL;
    err = NULL;
    auth_buffer *sentinel = NULL;
    (void)sentinel;
    auth_result code = session_of(auth, "authjs.session-token=tok", &s, &err);
    CHECK(code == AUTH_ADAPTER_ERROR && s == NULL, "a failing adapter: code %d", code);
    CHECK(err && strcmp(auth_error_type(err), "AdapterError") == 0, "type %s", auth_error_type(err));
    auth_error_free(err);
    CHECK(count(&h, "adapter.getSessionAndUser") == 3, "getSessionAndUser called");
    /* auth_get_session_by_cookie and auth_session_read answer the same for
     * a database session: found, not found, a failing adapter. */
    atomic_store(&h.mode, MODE_SESSION_FOUND);
    same_both_ways(auth, ORIGIN "/dashboard", "authjs.session-token=tok", "a database session");
    atomic_store(&h.mode, 0);
    same_both_ways(auth, ORIGIN "/dashboard", "authjs.session-token=tok", "no such database session");
    atomic_store(&h.mode, MODE_ADAPTER_FAILS);
    same_both_ways(auth, ORIGIN "/dashboard", "authjs.session-token=tok", "a failing adapter");
    CHECK(count(&h, "adapter.getSessionAndUser") == 12, "getSessionAndUser called by all three calls");
    auth_free(auth);
}

/* auth_get_access_token: arguments checked like every call; without an
 * adapter AUTH_MISSING_ADAPTER; an unknown user has no token (NULL, AUTH_OK).
 * (A revoked refresh token: test_revoked_refresh_token.) */
static void test_access_tokens(void) {
    host_state h = {0};
    auth_error *err = NULL;
    char *c = config_with("");
    auth_engine *bare = engine(c, &h, &err);
    free(c);
    CHECK(bare != NULL, "engine: %s", auth_error_message(err));
    auth_error_free(err);
    if (!bare) return;
    auth_buffer *out = (auth_buffer *)(uintptr_t)0x1;
    err = NULL;
    auth_result code = auth_get_access_token(bare, "u1", 2, "tiktok", 6, &out, &err);
    CHECK(code == AUTH_MISSING_ADAPTER, "no adapter: code %d", code);
    CHECK(out == (auth_buffer *)(uintptr_t)0x1, "nothing written");
    CHECK(err && strcmp(auth_error_type(err), "MissingAdapter") == 0, "type %s", err ? auth_error_type(err) : "-");
    auth_error_free(err);
    CHECK(auth_get_access_token(bare, "u1", 2, "tiktok", 6, NULL, NULL) == AUTH_NULL_ARGUMENT, "NULL token_out");
    CHECK(auth_get_access_token(bare, NULL, 2, "tiktok", 6, &out, NULL) == AUTH_NULL_ARGUMENT, "NULL user id");
    CHECK(auth_get_access_token(bare, "\xc3\x28", 2, "tiktok", 6, &out, NULL) == AUTH_INVALID_UTF8, "invalid UTF-8");
    CHECK(auth_get_access_token(NULL, "u1", 2, "tiktok", 6, &out, NULL) == AUTH_NULL_ARGUMENT, "NULL engine");
    auth_free(bare);

    c = config_with(",\"adapter\":{\"type\":\"memory\"}");
    auth_engine *with_db = engine(c, &h, NULL);
    free(c);
    CHECK(with_db != NULL, "engine with a memory adapter");
    if (!with_db) return;
    out = (auth_buffer *)(uintptr_t)0x1;
    CHECK(auth_get_access_token(with_db, "nobody", 6, "tiktok", 6, &out, NULL) == AUTH_OK && out == NULL,
          "no such account: AUTH_OK and no buffer");
    auth_free(with_db);
}

/* A tiny OAuth provider on loopback, one connection at a time: the code
 * grant answers tokens that are already due (expires_in 1) with a refresh
 * token, user info answers a user, and the refresh grant answers
 * `invalid_grant` (the user revoked the app). */
typedef struct {
    int fd;
    int port;
    atomic_int refreshes;
} mini_provider;

static void *mini_provider_serve(void *arg) {
    mini_provider *p = arg;
    for (;;) {
        int c = accept(p->fd, NULL, NULL);
        if (c < 0) return NULL;
        char req[8192];
        size_t n = 0;
        ssize_t got;
        /* Headers, then the body by Content-Length. */
        while (n < sizeof req - 1 && (got = recv(c, req + n, sizeof req - 1 - n, 0)) > 0) {
            n += (size_t)got;
            req[n] = '\0';
            char *end = strstr(req, "\r\n\r\n");
            if (!end) continue;
            char *cl = strcasestr(req, "content-length:");
            size_t want = cl && cl < end ? (size_t)strtoul(cl + 15, NULL, 10) : 0;
            if (n >= (size_t)(end + 4 - req) + want) break;
        }
        req[n] = '\0';
        const char *status = "200 OK", *body;
        if (strncmp(req, "GET /userinfo", 13) == 0) {
            body = "{\"id\":\"mini-user-1\",\"name\":\"Mini\",\"email\":\"mini@example.com\"}";
        } else if (strstr(req, "grant_type=refresh_token")) {
            atomic_fetch_add(&p->refreshes, 1);
            status = "400 Bad Request";
            body = "{\"error\":\"invalid_grant\",\"error_description\":\"The refresh token was revoked.\"}";
        } else {
            body = "{\"access_token\":\"at-1\",\"token_type\":\"Bearer\",\"expires_in\":1,"
                   "\"refresh_token\":\"rt-1\"}";
        }
        char head[256];
        int len = snprintf(head, sizeof head,
                           "HTTP/1.1 %s\r\ncontent-type: application/json\r\ncontent-length: %zu\r\n"
                           "connection: close\r\n\r\n",
                           status, strlen(body));
        if (send(c, head, (size_t)len, 0) < 0 || send(c, body, strlen(body), 0) < 0) perror("mini provider");
        close(c);
    }
}

/* auth_get_access_token with a refresh token the provider refuses:
 * AUTH_REFRESH_TOKEN_REVOKED (131) and the RefreshTokenRevoked error type. */
static void test_revoked_refresh_token(void) {
    mini_provider p = {0};
    p.fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof addr;
    if (p.fd < 0 || bind(p.fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(p.fd, 8) != 0 ||
        getsockname(p.fd, (struct sockaddr *)&addr, &alen) != 0) {
        CHECK(0, "mini provider: could not listen");
        return;
    }
    p.port = ntohs(addr.sin_port);
    pthread_t thread;
    pthread_create(&thread, NULL, mini_provider_serve, &p);

    char extra[1024];
    snprintf(extra, sizeof extra,
             ",\"adapter\":{\"type\":\"memory\"},\"session\":{\"strategy\":\"jwt\"},"
             "\"providers\":[{\"type\":\"oauth\",\"id\":\"mini\",\"clientId\":\"c\",\"clientSecret\":\"s\","
             "\"checks\":[\"state\"],\"authorization\":\"http://127.0.0.1:%d/authorize\","
             "\"token\":\"http://127.0.0.1:%d/token\",\"userinfo\":\"http://127.0.0.1:%d/userinfo\"}],"
             "\"hooks\":{\"implemented\":[\"events.signIn\"]}",
             p.port, p.port, p.port);
    char *c = config_with(extra);
    host_state h = {0};
    auth_error *err = NULL;
    auth_engine *auth = engine(c, &h, &err);
    free(c);
    CHECK(auth != NULL, "engine: %s", err ? auth_error_message(err) : "-");
    auth_error_free(err);
    if (auth) {
        /* Sign in: the app's redirect carries the state; the provider's
         * consent is skipped and its callback sent straight back. */
        char jar[8192] = "", token[256];
        csrf(auth, token, sizeof token, jar, sizeof jar);
        char body[512];
        snprintf(body, sizeof body, "csrfToken=%s", token);
        const char *post[] = {"content-type", "application/x-www-form-urlencoded", "cookie", jar, NULL};
        response r;
        call(auth, "POST", ORIGIN "/auth/signin/mini", post, body, &r);
        update_jar(jar, sizeof jar, &r);
        const char *to = header(&r, "location", 0);
        const char *state = to ? strstr(to, "state=") : NULL;
        char callback[1024];
        snprintf(callback, sizeof callback, ORIGIN "/auth/callback/mini?code=c1&%.*s", state ? (int)strcspn(state, "&") : 0,
                 state ? state : "");
        response_free(&r);
        const char *get[] = {"cookie", jar, NULL};
        call(auth, "GET", callback, get, NULL, &r);
        CHECK(r.status == 302 && header(&r, "location", 0) && !strstr(header(&r, "location", 0), "error="),
              "signed in: %d %s", r.status, header(&r, "location", 0) ? header(&r, "location", 0) : "-");
        response_free(&r);
        CHECK(h.signed_in_user[0] != '\0', "events.signIn named the user");

        /* The stored access token is due; its refresh token is refused. */
        auth_buffer *out = (auth_buffer *)(uintptr_t)0x1;
        err = NULL;
        auth_result code =
            auth_get_access_token(auth, h.signed_in_user, strlen(h.signed_in_user), "mini", 4, &out, &err);
        CHECK(code == AUTH_REFRESH_TOKEN_REVOKED && code == 131, "revoked refresh token: code %d", code);
        CHECK(out == (auth_buffer *)(uintptr_t)0x1, "nothing written");
        CHECK(err && strcmp(auth_error_type(err), "RefreshTokenRevoked") == 0, "type %s",
              err ? auth_error_type(err) : "-");
        auth_error_free(err);
        CHECK(atomic_load(&p.refreshes) == 1, "one refresh request: %d", atomic_load(&p.refreshes));
        auth_free(auth);
    }
    shutdown(p.fd, SHUT_RDWR);
    close(p.fd);
    pthread_join(thread, NULL);
}

/* Built-in providers are plain JSON from C: `{"builtin": "google", ...}`. */
static void test_builtin_providers_json(void) {
    char *c = config_with(",\"providers\":[{\"builtin\":\"google\",\"clientId\":\"g\",\"clientSecret\":\"s\"},"
                          "{\"builtin\":\"microsoft-entra-id\",\"clientId\":\"m\",\"clientSecret\":\"s\"},"
                          "{\"builtin\":\"gitlab\",\"baseUrl\":\"https://git.example.com\",\"clientId\":\"l\","
                          "\"clientSecret\":\"s\"}]");
    host_state h = {0};
    auth_error *err = NULL;
    auth_engine *auth = engine(c, &h, &err);
    free(c);
    CHECK(auth != NULL, "engine: %s", err ? auth_error_message(err) : "-");
    auth_error_free(err);
    if (!auth) return;
    response r;
    call(auth, "GET", ORIGIN "/auth/providers", NULL, NULL, &r);
    cJSON *body = cJSON_Parse(r.body);
    const char *entra = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(body, "microsoft-entra-id"), "name"));
    CHECK(r.status == 200 && cJSON_GetObjectItem(body, "google") && cJSON_GetObjectItem(body, "gitlab"), "listed: %s",
          r.body);
    CHECK(entra && strcmp(entra, "Microsoft Entra ID") == 0, "entra's name: %s", entra ? entra : "-");
    cJSON_Delete(body);
    response_free(&r);
    auth_free(auth);
}

int main(void) {
    unsetenv("AUTH_SECRET"); /* the "no secret" case */
    test_basics();
    test_config_errors();
    test_round_trip();
    test_session_by_cookie();
    test_session_handle();
    test_passkeys();
    test_user_sessions();
    test_two_factor();
    test_password_actions();
    test_deadline_and_admission();
    test_email_and_adapter();
    test_access_tokens();
    test_revoked_refresh_token();
    test_builtin_providers_json();
    return report("test_auth");
}
