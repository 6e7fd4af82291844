/* The C API's shared state and external weights, from C99:
 *
 *   etch-c-api-state-test STATE.etp EXTERNAL.etp WEIGHTS.etw
 *
 * STATE.etp's forward returns cache + x and keeps the sum as its state
 * "cache" (4 floats, from zeros). Two loads with one etch_state continue
 * each other's sums; a load without one keeps its own. EXTERNAL.etp keeps
 * its weights in WEIGHTS.etw: it loads from its file and from memory with
 * etch_load_options.weights_path, and from memory without it is an error
 * naming the file it was compiled against. */
#include "etch/c/etch_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed = 0;

static int ok(const char *what, etch_status *status) {
  if (!status)
    return 1;
  printf("%s: %s\n", what, etch_status_message(status));
  etch_status_free(status);
  failed = 1;
  return 0;
}

static void expectFailure(const char *what, etch_status *status) {
  if (!status) {
    printf("%s: unexpectedly succeeded\n", what);
    failed = 1;
    return;
  }
  printf("%s: %s\n", what, etch_status_message(status));
  etch_status_free(status);
}

/* Runs method on x = 1 everywhere; output 0's first element. */
static float step(etch_method *method) {
  float ones[4] = {1, 1, 1, 1};
  int64_t sizes[1] = {4};
  const void *data = NULL;
  size_t nbytes = 0;
  if (!ok("set input", etch_method_set_input(method, 0, ETCH_FLOAT32, sizes, 1,
                                             ones, sizeof(ones))) ||
      !ok("execute", etch_method_execute(method)) ||
      !ok("output", etch_method_output_data(method, 0, &data, &nbytes)))
    return -1;
  return ((const float *)data)[0];
}

static void *readFile(const char *path, size_t *size) {
  FILE *file = fopen(path, "rb");
  void *bytes;
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  *size = (size_t)ftell(file);
  fseek(file, 0, SEEK_SET);
  bytes = malloc(*size ? *size : 1);
  if (bytes && fread(bytes, 1, *size, file) != *size) {
    free(bytes);
    bytes = NULL;
  }
  fclose(file);
  return bytes;
}

static void sharedState(const char *path) {
  etch_program *program = NULL;
  etch_state *state = NULL;
  etch_method *first = NULL, *second = NULL, *own = NULL;
  if (!ok("open", etch_program_open(path, NULL, &program)) ||
      !ok("state", etch_state_create(&state)) ||
      !ok("load first",
          etch_method_load_shared(program, "forward", state, &first)) ||
      !ok("load second",
          etch_method_load_shared(program, "forward", state, &second)) ||
      !ok("load own", etch_method_load(program, "forward", &own)))
    return;
  {
    /* In this order: argument evaluation order is unspecified. */
    float a = step(first), b = step(second), c = step(first);
    printf("shared: %g %g %g\n", a, b, c);
  }
  printf("own: %g\n", step(own));
  etch_method_reset_state(second);
  printf("after reset: %g\n", step(first));
  etch_method_free(first);
  etch_method_free(second);
  etch_method_free(own);
  etch_state_free(state);
  etch_program_free(program);
}

static void externalWeights(const char *path, const char *weights) {
  etch_load_options options;
  etch_program *program = NULL;
  size_t size = 0;
  void *bytes = readFile(path, &size);
  etch_load_options_init(&options);
  options.weights_path = weights;
  if (ok("open with weights", etch_program_open(path, &options, &program))) {
    printf("opened with weights\n");
    etch_program_free(program);
  }
  if (!bytes) {
    printf("%s: cannot read\n", path);
    failed = 1;
    return;
  }
  if (ok("load with weights",
         etch_program_load(bytes, size, "external", &options, &program))) {
    printf("loaded with weights\n");
    etch_program_free(program);
  }
  options.weights_path = NULL;
  expectFailure("load without weights",
                etch_program_load(bytes, size, "external", &options, &program));
  free(bytes);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(
        stderr,
        "usage: etch-c-api-state-test STATE.etp EXTERNAL.etp WEIGHTS.etw\n");
    return 2;
  }
  sharedState(argv[1]);
  externalWeights(argv[2], argv[3]);
  printf(failed ? "FAILED\n" : "all checks passed\n");
  return failed;
}
