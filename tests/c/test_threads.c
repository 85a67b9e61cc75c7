/* Many threads on one engine: THREADS threads, CALLS calls each (argv[1],
 * argv[2]; default 8 x 10000), mixing credentials sign-ins (every tenth
 * call) with session reads (auth_get_session and auth_session_read in
 * turn); every result is checked: each thread signs in as its own user and
 * must read back exactly that user. Hooks (authorize, jwt, session) run on
 * the calling threads at once. Then every thread reads one cookie at once
 * with auth_session_read on an engine without session hooks (the handles
 * share the session cache's copy), and one handle made before they
 * started. Prints "test_threads: N passed, N failed": one check per thread
 * and phase (all its calls right), plus the totals. */
#define _GNU_SOURCE
#include <pthread.h>
#include <strings.h>

#include "common.h"

#define SECRET "a-test-secret-of-at-least-thirty-two-characters"
#define ORIGIN "http://localhost:8080"

static const auth_engine *auth;
static long calls_per_thread = 10000;
static atomic_long hook_calls;
static atomic_long calls_ok;
static atomic_long wrong_thread;
/* Which worker this thread is (-1: not a worker): a hook must run on the
 * thread whose call reached it. */
static _Thread_local long worker_id = -1;

/* A call's check: counted per thread, the first few failures printed. */
#define EXPECT(cond, ...)                                                  \
    do {                                                                   \
        if (cond) {                                                        \
            atomic_fetch_add(&calls_ok, 1);                                \
        } else if (bad++ < 5) {                                            \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
        }                                                                  \
    } while (0)

static int32_t hook(void *user_data, const char *name, const char *args_json, size_t args_len,
                    auth_hook_result *result) {
    (void)user_data;
    atomic_fetch_add(&hook_calls, 1);
    cJSON *args = cJSON_ParseWithLength(args_json, args_len);
    int32_t status = AUTH_HOOK_OK;
    cJSON *out = NULL;
    if (strcmp(name, "providers.credentials.authorize") == 0) {
        cJSON *creds = cJSON_GetObjectItem(args, "credentials");
        const char *user = cJSON_GetStringValue(cJSON_GetObjectItem(creds, "username"));
        const char *pass = cJSON_GetStringValue(cJSON_GetObjectItem(creds, "password"));
        char expected[32];
        snprintf(expected, sizeof expected, "user%ld", worker_id);
        if (!user || strcmp(user, expected) != 0) atomic_fetch_add(&wrong_thread, 1);
        if (user && pass && strcmp(user, pass) == 0) {
            out = cJSON_CreateObject();
            cJSON_AddStringToObject(out, "id", user);
            cJSON_AddStringToObject(out, "name", user);
        } else {
            auth_hook_result_error(result, "CredentialsSignin", "wrong password", NULL);
            status = AUTH_HOOK_ERROR;
        }
    } else if (strcmp(name, "callbacks.jwt") == 0) {
        out = cJSON_DetachItemFromObject(args, "token");
    } else if (strcmp(name, "callbacks.session") == 0) {
        out = cJSON_DetachItemFromObject(args, "session");
        cJSON_AddStringToObject(out, "via", "c");
    }
    if (out) {
        char *json = cJSON_PrintUnformatted(out);
        auth_hook_result_set(result, json, strlen(json));
        free(json);
        cJSON_Delete(out);
    }
    cJSON_Delete(args);
    return status;
}

/* A credentials sign-in as `user` (its password is its name): csrf, then
 * the callback; the cookies in `jar`. Whether it signed in. */
static int sign_in(const auth_engine *engine, const char *user, char *jar, size_t cap) {
    response r;
    jar[0] = '\0';
    if (call(engine, "GET", ORIGIN "/auth/csrf", NULL, NULL, &r) != AUTH_OK) return 0;
    char token[256];
    cJSON *body = cJSON_Parse(r.body);
    snprintf(token, sizeof token, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(body, "csrfToken")) ?: "");
    cJSON_Delete(body);
    update_jar(jar, cap, &r);
    response_free(&r);
    char form[512];
    snprintf(form, sizeof form, "csrfToken=%s&username=%s&password=%s", token, user, user);
    const char *headers[] = {"content-type", "application/x-www-form-urlencoded", "cookie", jar, NULL};
    auth_result code = call(engine, "POST", ORIGIN "/auth/callback/credentials", headers, form, &r);
    update_jar(jar, cap, &r);
    int ok = code == AUTH_OK && r.status == 302 && strstr(jar, "authjs.session-token=");
    response_free(&r);
    return ok;
}

/* Whether `got` (`len` bytes, not NUL-terminated) is `want`. */
static int is(const char *got, size_t len, const char *want) {
    return got && len == strlen(want) && memcmp(got, want, len) == 0;
}

static void *worker(void *arg) {
    long id = (long)arg;
    worker_id = id;
    long bad = 0;
    char user[32], jar[8192] = "";
    snprintf(user, sizeof user, "user%ld", id);
    const char *url = ORIGIN "/";
    for (long i = 0; i < calls_per_thread; i++) {
        if (i % 10 == 0) {
            EXPECT(sign_in(auth, user, jar, sizeof jar), "thread %ld call %ld: sign-in", id, i);
        } else if (i % 2) {
            /* The handle: no JSON. */
            auth_session *s = NULL;
            auth_result code = auth_session_read(auth, url, strlen(url), jar, strlen(jar), &s, NULL);
            size_t name_len = 0, via_len = 0;
            const char *name = auth_session_user_field(s, "name", &name_len);
            const char *via = auth_session_string(s, "via", NULL, &via_len);
            EXPECT(code == AUTH_OK && is(name, name_len, user) && is(via, via_len, "c"),
                   "thread %ld call %ld: the handle of %.*s", id, i, name ? (int)name_len : 6, name ? name : "(none)");
            auth_session_free(s);
        } else {
            const char *headers[] = {"cookie", jar, NULL};
            char *req = request_json("GET", ORIGIN "/", headers, NULL);
            auth_buffer *buf = NULL;
            auth_result code = auth_get_session(auth, req, strlen(req), &buf, NULL);
            free(req);
            cJSON *s = buf ? cJSON_ParseWithLength(buf->data, buf->len) : NULL;
            auth_buffer_free(buf);
            const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "user"), "name"));
            const char *via = cJSON_GetStringValue(cJSON_GetObjectItem(s, "via"));
            EXPECT(code == AUTH_OK && name && strcmp(name, user) == 0 && via && strcmp(via, "c") == 0,
                  "thread %ld call %ld: session of %s", id, i, name ? name : "(none)");
            cJSON_Delete(s);
        }
    }
    CHECK(bad == 0, "thread %ld: %ld of %ld calls wrong", id, bad, calls_per_thread);
    return NULL;
}

/* The second phase: one cookie (user99's), on an engine without session
 * hooks, read by every thread at once; and one handle, read before they
 * started, read by all of them. */
static const auth_engine *lean_auth;
static char lean_jar[8192];
static const auth_session *held;

static void *lean_worker(void *arg) {
    long id = (long)arg;
    long bad = 0;
    const char *url = ORIGIN "/dashboard";
    for (long i = 0; i < calls_per_thread; i++) {
        auth_session *s = NULL;
        auth_result code = auth_session_read(lean_auth, url, strlen(url), lean_jar, strlen(lean_jar), &s, NULL);
        size_t len = 0, held_len = 0;
        const char *name = auth_session_user_field(s, "name", &len);
        const char *held_name = auth_session_user_field(held, "name", &held_len);
        EXPECT(code == AUTH_OK && is(name, len, "user99") && is(held_name, held_len, "user99"),
               "thread %ld read %ld: %.*s", id, i, name ? (int)len : 6, name ? name : "(none)");
        auth_session_free(s);
    }
    CHECK(bad == 0, "thread %ld: %ld of %ld handle reads of one cookie wrong", id, bad, calls_per_thread);
    return NULL;
}

int main(int argc, char **argv) {
    long threads = argc > 1 ? atol(argv[1]) : 8;
    if (argc > 2) calls_per_thread = atol(argv[2]);
    const char *config = "{\"secret\":\"" SECRET "\",\"trustHost\":true,"
                         "\"providers\":[{\"id\":\"credentials\",\"type\":\"credentials\"}],"
                         "\"hooks\":{\"implemented\":[\"providers.credentials.authorize\",\"callbacks.jwt\","
                         "\"callbacks.session\"]}}";
    auth_engine *engine = NULL;
    auth_error *err = NULL;
    if (auth_new(config, strlen(config), hook, NULL, &engine, &err) != AUTH_OK) {
        fprintf(stderr, "auth_new: %s\n", auth_error_message(err));
        auth_error_free(err);
        return 1;
    }
    auth = engine;
    pthread_t tids[64];
    if (threads > 64) threads = 64;
    for (long t = 0; t < threads; t++) pthread_create(&tids[t], NULL, worker, (void *)t);
    for (long t = 0; t < threads; t++) pthread_join(tids[t], NULL);
    CHECK(atomic_load(&calls_ok) == threads * calls_per_thread, "every call right (%ld of %ld)",
          atomic_load(&calls_ok), threads * calls_per_thread);
    CHECK(atomic_load(&wrong_thread) == 0, "authorize ran on the calling thread (%ld times elsewhere)",
          atomic_load(&wrong_thread));
    CHECK(atomic_load(&hook_calls) >= threads * calls_per_thread, "hooks ran on the calling threads (%ld)",
          atomic_load(&hook_calls));

    const char *lean_config = "{\"secret\":\"" SECRET "\",\"trustHost\":true,"
                              "\"providers\":[{\"id\":\"credentials\",\"type\":\"credentials\"}],"
                              "\"hooks\":{\"implemented\":[\"providers.credentials.authorize\"]}}";
    auth_engine *lean = NULL;
    worker_id = 99; /* authorize checks the thread: this one signs in as user99 */
    CHECK(auth_new(lean_config, strlen(lean_config), hook, NULL, &lean, NULL) == AUTH_OK &&
              sign_in(lean, "user99", lean_jar, sizeof lean_jar),
          "the second engine, signed in");
    lean_auth = lean;
    auth_session *first = NULL;
    const char *url = ORIGIN "/";
    auth_session_read(lean, url, strlen(url), lean_jar, strlen(lean_jar), &first, NULL);
    held = first;
    long before = atomic_load(&calls_ok);
    for (long t = 0; t < threads; t++) pthread_create(&tids[t], NULL, lean_worker, (void *)t);
    for (long t = 0; t < threads; t++) pthread_join(tids[t], NULL);
    CHECK(atomic_load(&calls_ok) - before == threads * calls_per_thread, "every handle read right (%ld of %ld)",
          atomic_load(&calls_ok) - before, threads * calls_per_thread);
    auth_session_free(first);
    auth_free(lean);
    auth_free(engine);
    return report("test_threads");
}
