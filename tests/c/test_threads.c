/* Many threads on one engine: THREADS threads, CALLS calls each (argv[1],
 * argv[2]; default 8 x 10000), mixing credentials sign-ins (every tenth
 * call) with get_session; every result is checked: each thread signs in as
 * its own user and must read back exactly that user. Hooks (authorize,
 * jwt, session) run on the calling threads at once.
 * Prints "test_threads: N passed, N failed": one check per thread (all its
 * calls right), plus the totals. */
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

static void *worker(void *arg) {
    long id = (long)arg;
    worker_id = id;
    long bad = 0;
    char user[32], jar[8192] = "", token[256] = "";
    snprintf(user, sizeof user, "user%ld", id);
    for (long i = 0; i < calls_per_thread; i++) {
        if (i % 10 == 0) {
            /* A fresh sign-in: csrf, then the credentials callback. */
            response r;
            jar[0] = '\0';
            if (call(auth, "GET", ORIGIN "/auth/csrf", NULL, NULL, &r) != AUTH_OK) {
                EXPECT(0, "csrf call");
                continue;
            }
            cJSON *body = cJSON_Parse(r.body);
            snprintf(token, sizeof token, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(body, "csrfToken")) ?: "");
            cJSON_Delete(body);
            update_jar(jar, sizeof jar, &r);
            response_free(&r);
            char form[512];
            snprintf(form, sizeof form, "csrfToken=%s&username=%s&password=%s", token, user, user);
            const char *headers[] = {"content-type", "application/x-www-form-urlencoded", "cookie", jar, NULL};
            auth_result code = call(auth, "POST", ORIGIN "/auth/callback/credentials", headers, form, &r);
            update_jar(jar, sizeof jar, &r);
            EXPECT(code == AUTH_OK && r.status == 302 && strstr(jar, "authjs.session-token="),
                  "thread %ld call %ld: sign-in %d", id, i, r.status);
            response_free(&r);
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
    auth_free(engine);
    return report("test_threads");
}
