/* Helpers shared by the C tests: counting checks, building requests and
 * reading responses (with cJSON, from Debian's libcjson-dev). */
#ifndef LIBAUTH_TEST_COMMON_H
#define LIBAUTH_TEST_COMMON_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "auth.h"

static atomic_int passed;
static atomic_int failed;

#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (cond) {                                                      \
            atomic_fetch_add(&passed, 1);                                \
        } else {                                                         \
            atomic_fetch_add(&failed, 1);                                \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                \
            fprintf(stderr, "\n");                                       \
        }                                                                \
    } while (0)

static int report(const char *program) {
    printf("%s: %d passed, %d failed\n", program, atomic_load(&passed), atomic_load(&failed));
    return atomic_load(&failed) == 0 ? 0 : 1;
}

/* A request as JSON (malloc'd). `headers` is NULL-terminated name, value, ... */
static char *request_json(const char *method, const char *url, const char *const *headers, const char *body) {
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "method", method);
    cJSON_AddStringToObject(req, "url", url);
    cJSON *list = cJSON_AddArrayToObject(req, "headers");
    for (size_t i = 0; headers && headers[i] && headers[i + 1]; i += 2) {
        cJSON *pair = cJSON_CreateArray();
        cJSON_AddItemToArray(pair, cJSON_CreateString(headers[i]));
        cJSON_AddItemToArray(pair, cJSON_CreateString(headers[i + 1]));
        cJSON_AddItemToArray(list, pair);
    }
    if (body) cJSON_AddStringToObject(req, "body", body);
    char *out = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    return out;
}

/* A response, parsed. */
typedef struct {
    int status;
    cJSON *json;      /* the whole response */
    const char *body; /* owned by json */
} response;

static void response_free(response *r) {
    cJSON_Delete(r->json);
    memset(r, 0, sizeof *r);
}

/* Call auth_handle; returns its code, fills `out` on success. */
static auth_result call(const auth_engine *auth, const char *method, const char *url, const char *const *headers,
                        const char *body, response *out) {
    char *req = request_json(method, url, headers, body);
    auth_buffer *buf = NULL;
    auth_error *err = NULL;
    auth_result code = auth_handle(auth, req, strlen(req), &buf, &err);
    free(req);
    memset(out, 0, sizeof *out);
    if (code != AUTH_OK) {
        fprintf(stderr, "auth_handle: %s\n", auth_error_message(err));
        auth_error_free(err);
        return code;
    }
    out->json = cJSON_ParseWithLength(buf->data, buf->len);
    auth_buffer_free(buf);
    out->status = cJSON_GetObjectItem(out->json, "status")->valueint;
    out->body = cJSON_GetStringValue(cJSON_GetObjectItem(out->json, "body"));
    return code;
}

/* The value of header `name` (the n-th of that name), or NULL. */
static const char *header(const response *r, const char *name, int n) {
    cJSON *pair;
    cJSON_ArrayForEach(pair, cJSON_GetObjectItem(r->json, "headers")) {
        const char *k = cJSON_GetStringValue(cJSON_GetArrayItem(pair, 0));
        if (k && strcasecmp(k, name) == 0 && n-- == 0) return cJSON_GetStringValue(cJSON_GetArrayItem(pair, 1));
    }
    return NULL;
}

/* Append the `name=value` of every Set-Cookie of `r` to the cookie header
 * `jar` (a buffer of `cap` bytes), replacing cookies of the same name. An
 * empty value (a deleted cookie) removes it. */
static void update_jar(char *jar, size_t cap, const response *r) {
    for (int i = 0;; i++) {
        const char *sc = header(r, "set-cookie", i);
        if (!sc) break;
        const char *eq = strchr(sc, '=');
        const char *end = strchr(sc, ';');
        if (!eq) continue;
        if (!end) end = sc + strlen(sc);
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - sc), sc);
        /* Drop the old value. */
        char rebuilt[8192] = "";
        char *copy = strdup(jar);
        for (char *save = NULL, *part = strtok_r(copy, ";", &save); part; part = strtok_r(NULL, ";", &save)) {
            while (*part == ' ') part++;
            size_t nl = strlen(name);
            if (strncmp(part, name, nl) == 0 && part[nl] == '=') continue;
            if (*rebuilt) strcat(rebuilt, "; ");
            strcat(rebuilt, part);
        }
        free(copy);
        if (end > eq + 1) {
            if (*rebuilt) strcat(rebuilt, "; ");
            strncat(rebuilt, sc, (size_t)(end - sc));
        }
        snprintf(jar, cap, "%s", rebuilt);
    }
}

#endif
