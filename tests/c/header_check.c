/* The header alone, compiled as C11 and as C++17 with -Wall -Wextra -Werror
 * -pedantic (tests/c/run.sh): every declaration used once. */
#include "auth.h"

#include <stdio.h>

static int32_t hook(void *user_data, const char *hook_name, const char *args_json, size_t args_len,
                    auth_hook_result *result) {
    (void)user_data;
    (void)hook_name;
    (void)args_json;
    (void)args_len;
    return auth_hook_result_set(result, "null", 4) == AUTH_OK ? AUTH_HOOK_OK : AUTH_HOOK_ERROR;
}

int main(void) {
    auth_engine *auth = NULL;
    auth_error *err = NULL;
    const char config[] = "{\"secret\":\"a-test-secret-of-at-least-thirty-two-characters\",\"trustHost\":true}";
    auth_hook_fn fn = hook;
    auth_result code = auth_new(config, sizeof config - 1, fn, NULL, &auth, &err);
    if (code != AUTH_OK) {
        fprintf(stderr, "%s (%s, option %s)\n", auth_error_message(err), auth_error_type(err),
                auth_error_option(err) ? auth_error_option(err) : "-");
        auth_error_free(err);
        return 1;
    }
    auth_buffer *out = NULL;
    const char req[] = "{\"method\":\"GET\",\"url\":\"http://localhost/auth/providers\",\"headers\":[]}";
    code = auth_handle(auth, req, sizeof req - 1, &out, NULL);
    if (code == AUTH_OK) printf("%.*s\n", (int)out->len, out->data);
    auth_buffer_free(out);
    code = auth_get_session(auth, req, sizeof req - 1, &out, &err);
    auth_buffer_free(out);
    auth_error_free(err);
    (void)auth_error_code(err == NULL ? NULL : err);
    (void)auth_hook_result_error;
    printf("libauth %s (header %d.%d.%d) %s\n", auth_version(), AUTH_VERSION_MAJOR, AUTH_VERSION_MINOR,
           AUTH_VERSION_PATCH, auth_result_name(code));
    auth_free(auth);
    return code == AUTH_OK ? 0 : 1;
}
