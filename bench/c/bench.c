/* auth_get_session from C on the JWT strategy (no session hooks), the
 * same configuration and session as bench/engine's "get_session (JWT, no
 * callbacks)", so the two figures compare the C boundary with the Rust call.
 *
 *   bench-c 1   one thread: about a second of calls, prints µs/op
 *   bench-c 2   two threads on one engine: prints ops/s
 *   bench-c lean        as `1`, with auth_get_session_by_cookie (the URL
 *                       and the Cookie header, no request JSON)
 *   bench-c handle      as `lean`, with auth_session_read, the user's name
 *                       read from the handle (auth_session_user_field), and
 *                       auth_session_free: what a page showing the name does
 *   bench-c calls full|lean|handle N   N calls and nothing printed, for
 *                       callgrind (bench/reads/run.sh: instructions per call)
 *
 * Run by bench/c/run.sh (release build, pinned with taskset). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"

#define SECRET "bench-secret-bench-secret-bench-secret!"

static auth_engine *auth;
static char session_req[4096];
static size_t session_len;
static const char session_url[] = "http://localhost:3000/dashboard";
static char session_cookie[2048];
static size_t session_cookie_len;

static int32_t hook(void *user_data, const char *name, const char *args, size_t len, auth_hook_result *result) {
    (void)user_data;
    (void)name;
    (void)args;
    (void)len;
    static const char user[] = "{\"id\":\"1\",\"name\":\"Bench User\",\"email\":\"bench@example.com\","
                               "\"image\":\"https://img.example/u.png\"}";
    auth_hook_result_set(result, user, sizeof user - 1);
    return AUTH_HOOK_OK;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The value of the first set-cookie starting with `prefix`, up to ';'. */
static void cookie_from(const char *json, const char *prefix, char *out, size_t cap) {
    const char *p = strstr(json, prefix);
    if (!p) {
        fprintf(stderr, "no %s in %s\n", prefix, json);
        exit(1);
    }
    size_t n = strcspn(p, ";\"");
    snprintf(out, cap, "%.*s", (int)n, p);
}

static void sign_in(void) {
    const char csrf_req[] = "{\"method\":\"GET\",\"url\":\"http://localhost:3000/auth/csrf\",\"headers\":[]}";
    auth_buffer *res = NULL;
    if (auth_handle(auth, csrf_req, sizeof csrf_req - 1, &res, NULL) != AUTH_OK) exit(1);
    char csrf_cookie[512], token[128];
    cookie_from(res->data, "authjs.csrf-token=", csrf_cookie, sizeof csrf_cookie);
    const char *t = strstr(res->data, "csrfToken\\\":\\\"");
    if (!t) exit(1);
    snprintf(token, sizeof token, "%.64s", t + strlen("csrfToken\\\":\\\""));
    auth_buffer_free(res);
    char req[2048];
    int n = snprintf(req, sizeof req,
                     "{\"method\":\"POST\",\"url\":\"http://localhost:3000/auth/callback/credentials\","
                     "\"headers\":[[\"content-type\",\"application/x-www-form-urlencoded\"],[\"cookie\",\"%s\"]],"
                     "\"body\":\"csrfToken=%s&username=u&password=p\"}",
                     csrf_cookie, token);
    if (auth_handle(auth, req, (size_t)n, &res, NULL) != AUTH_OK) exit(1);
    cookie_from(res->data, "authjs.session-token=", session_cookie, sizeof session_cookie);
    session_cookie_len = strlen(session_cookie);
    auth_buffer_free(res);
    session_len = (size_t)snprintf(session_req, sizeof session_req,
                                   "{\"method\":\"GET\",\"url\":\"http://localhost:3000/dashboard\","
                                   "\"headers\":[[\"cookie\",\"%s\"]]}",
                                   session_cookie);
}

static void one_call(void) {
    auth_buffer *session = NULL;
    if (auth_get_session(auth, session_req, session_len, &session, NULL) != AUTH_OK || !session) {
        fprintf(stderr, "get_session failed\n");
        exit(1);
    }
    auth_buffer_free(session);
}

static void one_lean_call(void) {
    auth_buffer *session = NULL;
    if (auth_get_session_by_cookie(auth, session_url, sizeof session_url - 1, session_cookie, session_cookie_len,
                                   &session, NULL) != AUTH_OK ||
        !session) {
        fprintf(stderr, "get_session_by_cookie failed\n");
        exit(1);
    }
    auth_buffer_free(session);
}

static void one_handle_call(void) {
    auth_session *session = NULL;
    size_t len = 0;
    if (auth_session_read(auth, session_url, sizeof session_url - 1, session_cookie, session_cookie_len, &session,
                          NULL) != AUTH_OK ||
        !auth_session_user_field(session, "name", &len) || len == 0) {
        fprintf(stderr, "auth_session_read failed\n");
        exit(1);
    }
    auth_session_free(session);
}

static void *loop(void *arg) {
    long n = (long)arg;
    for (long i = 0; i < n; i++) one_call();
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    const char config[] = "{\"secret\":\"" SECRET "\",\"trustHost\":true,\"providers\":[{\"type\":\"credentials\","
                          "\"credentials\":{\"username\":{},\"password\":{}}}],"
                          "\"hooks\":{\"implemented\":[\"providers.credentials.authorize\"]}}";
    auth_error *err = NULL;
    if (auth_new(config, sizeof config - 1, hook, NULL, &auth, &err) != AUTH_OK) {
        fprintf(stderr, "auth_new: %s\n", auth_error_message(err));
        return 1;
    }
    sign_in();
    if (argc > 3 && strcmp(argv[1], "calls") == 0) {
        void (*call)(void) = strcmp(argv[2], "lean") == 0     ? one_lean_call
                             : strcmp(argv[2], "handle") == 0 ? one_handle_call
                                                              : one_call;
        for (long i = 0, n = atol(argv[3]); i < n; i++) call();
        auth_free(auth);
        return 0;
    }
    int lean = argc > 1 && strcmp(argv[1], "lean") == 0;
    int handle = argc > 1 && strcmp(argv[1], "handle") == 0;
    for (int i = 0; i < 1000; i++) one_call(); /* warm-up */
    if (lean || handle) {
        void (*call)(void) = lean ? one_lean_call : one_handle_call;
        long n = 0;
        double start = now();
        while (now() - start < 1.0) {
            for (int i = 0; i < 100; i++) call();
            n += 100;
        }
        double secs = now() - start;
        printf("c %s 1 thread: %.0f ops/s %.3f us/op\n", lean ? "get_session_by_cookie" : "session_read", n / secs,
               secs * 1e6 / n);
    } else if (threads <= 1) {
        /* As bench/engine's report(): about a second, in batches of 100. */
        long n = 0;
        double start = now();
        while (now() - start < 1.0) {
            for (int i = 0; i < 100; i++) one_call();
            n += 100;
        }
        double secs = now() - start;
        printf("c get_session 1 thread: %.0f ops/s %.3f us/op\n", n / secs, secs * 1e6 / n);
    } else {
        /* As bench/engine's "all cores": 200000 calls per thread. */
        long per_thread = 200000;
        pthread_t tids[16];
        if (threads > 16) threads = 16;
        double start = now();
        for (int t = 0; t < threads; t++) pthread_create(&tids[t], NULL, loop, (void *)per_thread);
        for (int t = 0; t < threads; t++) pthread_join(tids[t], NULL);
        double secs = now() - start;
        printf("c get_session %d threads: %.0f ops/s\n", threads, threads * per_thread / secs);
    }
    auth_free(auth);
    return 0;
}
