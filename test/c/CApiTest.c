/* The runtime's C API from C99: every call, every error path.
 *
 *   etch-c-api-test PROGRAM INPUT.raw OUTPUT.raw
 *
 * Loads PROGRAM from its file and from memory, runs method "forward" on
 * INPUT.raw (the bytes of input 0) with both and writes the output 0 bytes
 * to OUTPUT.raw. Prints what it sees and each failure's message (the lit
 * test checks them); exits 1 when anything is not as expected. */
#include "etch/c/etch_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define EXPECT(condition)                                                      \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* A call that must fail with code: prints "label: message". */
static void expectFailure(const char *label, etch_status *status,
                          etch_code code) {
  EXPECT(status != NULL);
  if (!status)
    return;
  if (etch_status_code(status) != code) {
    fprintf(stderr, "%s: code %d, expected %d\n", label,
            (int)etch_status_code(status), (int)code);
    ++failures;
  }
  printf("%s: %s\n", label, etch_status_message(status));
  etch_status_free(status);
}

/* A call that must succeed. */
static int ok(const char *label, etch_status *status) {
  if (!status)
    return 1;
  fprintf(stderr, "%s failed: %s\n", label, etch_status_message(status));
  etch_status_free(status);
  ++failures;
  return 0;
}

static void *readFile(const char *path, size_t *size) {
  FILE *file = fopen(path, "rb");
  void *bytes = NULL;
  long length;
  if (!file)
    return NULL;
  if (fseek(file, 0, SEEK_END) == 0 && (length = ftell(file)) >= 0 &&
      fseek(file, 0, SEEK_SET) == 0) {
    bytes = malloc(length ? (size_t)length : 1);
    if (bytes && fread(bytes, 1, (size_t)length, file) != (size_t)length) {
      free(bytes);
      bytes = NULL;
    }
    *size = (size_t)length;
  }
  fclose(file);
  return bytes;
}

static void printInfo(const char *kind, size_t index,
                      const etch_tensor_info *info) {
  int d;
  printf("%s %zu '%s': %s [", kind, index, info->name,
         etch_dtype_name(info->dtype));
  for (d = 0; d < info->rank; ++d)
    printf(d ? ", %lld" : "%lld", (long long)info->sizes[d]);
  printf("] bounds [");
  for (d = 0; d < info->rank; ++d)
    printf(d ? ", %lld..%lld" : "%lld..%lld", (long long)info->min_sizes[d],
           (long long)info->max_sizes[d]);
  printf("] %zu bytes\n", info->nbytes);
}

/* The input and argument errors set_input and the info calls report. */
static void inputErrors(etch_method *method, const etch_tensor_info *input,
                        const void *data) {
  etch_tensor_info info;
  int64_t sizes[ETCH_MAX_RANK];
  memcpy(sizes, input->sizes, sizeof sizes);
  expectFailure("input info out of range",
                etch_method_input_info(method, 7, &info),
                ETCH_INDEX_OUT_OF_RANGE);
  expectFailure("output info out of range",
                etch_method_output_info(method, 7, &info),
                ETCH_INDEX_OUT_OF_RANGE);
  expectFailure("wrong dtype",
                etch_method_set_input(method, 0, ETCH_INT64, sizes,
                                      input->rank, data, input->nbytes),
                ETCH_INVALID_TYPE);
  expectFailure("not a dtype",
                etch_method_set_input(method, 0, (etch_dtype)99, sizes,
                                      input->rank, data, input->nbytes),
                ETCH_INVALID_TYPE);
  expectFailure("wrong rank",
                etch_method_set_input(method, 0, input->dtype, sizes,
                                      input->rank - 1, data, input->nbytes),
                ETCH_INVALID_SHAPE);
  sizes[input->rank - 1] += 1;
  expectFailure("wrong dim",
                etch_method_set_input(method, 0, input->dtype, sizes,
                                      input->rank, data, input->nbytes),
                ETCH_INVALID_SHAPE);
  sizes[input->rank - 1] -= 1;
  expectFailure("wrong byte count",
                etch_method_set_input(method, 0, input->dtype, sizes,
                                      input->rank, data, input->nbytes - 4),
                ETCH_INVALID_SHAPE);
  expectFailure("no such input",
                etch_method_set_input(method, 9, input->dtype, sizes,
                                      input->rank, data, input->nbytes),
                ETCH_INVALID_ARGUMENT);
  expectFailure("null data",
                etch_method_set_input(method, 0, input->dtype, sizes,
                                      input->rank, NULL, input->nbytes),
                ETCH_INVALID_ARGUMENT);
}

/* Runs forward on data; copies output 0 into *out (malloc'd). */
static int run(etch_method *method, const void *data, void **out,
               size_t *outBytes) {
  etch_tensor_info input, output;
  const void *view = NULL;
  size_t viewBytes = 0;
  if (!ok("input info", etch_method_input_info(method, 0, &input)) ||
      !ok("set input", etch_method_set_input(method, 0, input.dtype,
                                             input.sizes, input.rank, data,
                                             input.nbytes)) ||
      !ok("execute", etch_method_execute(method)) ||
      !ok("output info", etch_method_output_info(method, 0, &output)) ||
      !ok("output data",
          etch_method_output_data(method, 0, &view, &viewBytes)))
    return 0;
  EXPECT(viewBytes == output.nbytes && view != NULL);
  *out = malloc(output.nbytes);
  *outBytes = output.nbytes;
  expectFailure("small buffer",
                etch_method_copy_output(method, 0, *out, output.nbytes - 1),
                ETCH_INVALID_ARGUMENT);
  if (!ok("copy output",
          etch_method_copy_output(method, 0, *out, output.nbytes)))
    return 0;
  EXPECT(memcmp(*out, view, output.nbytes) == 0);
  return 1;
}

/* Executes and checks output 0 against expected; 1 when equal. */
static int outputEquals(etch_method *method, const void *expected,
                        size_t expectedBytes) {
  const void *view = NULL;
  size_t viewBytes = 0;
  return ok("execute", etch_method_execute(method)) &&
         ok("output data",
            etch_method_output_data(method, 0, &view, &viewBytes)) &&
         viewBytes == expectedBytes &&
         memcmp(view, expected, expectedBytes) == 0;
}

/* bind_input: the caller's memory itself where the method allows it (only
 * kernels read the input), a copy where not (a delegate reads it) or where
 * the memory is not aligned; the same output either way, and set_input
 * after a bind copies into the method's own buffer, never the caller's. */
static void bindChecks(etch_method *method, const etch_tensor_info *input,
                       const void *data, const void *expected,
                       size_t expectedBytes) {
  size_t nbytes = input->nbytes;
  unsigned char *storage = malloc(nbytes + 2 * ETCH_TENSOR_ALIGNMENT);
  unsigned char *aligned = storage + (ETCH_TENSOR_ALIGNMENT -
                                      (size_t)storage % ETCH_TENSOR_ALIGNMENT);
  int bound = -1, misalignedBound = -1;
  if (!storage)
    return;
  memcpy(aligned, data, nbytes);
  if (ok("bind input",
         etch_method_bind_input(method, 0, input->dtype, input->sizes,
                                input->rank, aligned, nbytes, &bound)))
    EXPECT(outputEquals(method, expected, expectedBytes));
  printf("bind input: %s\n", bound == 1 ? "zero-copy" : "copied");
  if (bound == 1) {
    /* The method reads the caller's bytes at execute: changed bytes,
     * changed output, with no call in between. */
    memset(aligned, 0, nbytes);
    EXPECT(!outputEquals(method, expected, expectedBytes));
    memcpy(aligned, data, nbytes);
    EXPECT(outputEquals(method, expected, expectedBytes));
  }
  /* set_input after a bind leaves the caller's memory alone. */
  memset(aligned, 0x5a, nbytes);
  if (ok("set input after bind",
         etch_method_set_input(method, 0, input->dtype, input->sizes,
                               input->rank, data, nbytes))) {
    EXPECT(outputEquals(method, expected, expectedBytes));
    EXPECT(aligned[0] == 0x5a && aligned[nbytes - 1] == 0x5a);
  }
  /* Misaligned memory is copied. */
  memcpy(aligned + 4, data, nbytes);
  if (ok("bind misaligned",
         etch_method_bind_input(method, 0, input->dtype, input->sizes,
                                input->rank, aligned + 4, nbytes,
                                &misalignedBound)))
    EXPECT(outputEquals(method, expected, expectedBytes));
  EXPECT(misalignedBound == 0);
  EXPECT(ok("bind without flag",
            etch_method_bind_input(method, 0, input->dtype, input->sizes,
                                   input->rank, data, nbytes, NULL)));
  expectFailure("bind wrong dtype",
                etch_method_bind_input(method, 0, ETCH_INT64, input->sizes,
                                       input->rank, aligned, nbytes, &bound),
                ETCH_INVALID_TYPE);
  expectFailure("bind null data",
                etch_method_bind_input(method, 0, input->dtype, input->sizes,
                                       input->rank, NULL, nbytes, &bound),
                ETCH_INVALID_ARGUMENT);
  EXPECT(ok("set input",
            etch_method_set_input(method, 0, input->dtype, input->sizes,
                                  input->rank, data, nbytes)));
  free(storage);
}

int main(int argc, char **argv) {
  etch_load_options options;
  etch_program *program = NULL, *fromMemory = NULL;
  etch_method *method = NULL, *again = NULL;
  etch_tensor_info input, output;
  void *inputBytes, *programBytes, *first = NULL, *second = NULL;
  size_t inputSize = 0, programSize = 0, firstBytes = 0, secondBytes = 0, i;
  const unsigned char garbage[64] = {'n', 'o', 't', ' ', 'a', 'n'};
  FILE *file;
  if (argc != 4) {
    fprintf(stderr, "usage: etch-c-api-test PROGRAM INPUT.raw OUTPUT.raw\n");
    return 2;
  }
  printf("etch %s, C API %d\n", etch_version(), ETCH_C_API_VERSION);
  EXPECT(etch_status_code(NULL) == ETCH_OK);
  EXPECT(strcmp(etch_status_message(NULL), "") == 0);
  etch_status_free(NULL);
  EXPECT(strcmp(etch_dtype_name(ETCH_INT64), "int64") == 0);
  EXPECT(etch_dtype_size(ETCH_FLOAT16) == 2 && etch_dtype_size(99) == 0);

  /* Programs that do not load. */
  expectFailure("missing file",
                etch_program_open("missing.etp", NULL, &program),
                ETCH_ACCESS_FAILED);
  EXPECT(program == NULL);
  expectFailure("garbage",
                etch_program_load(garbage, sizeof garbage, "garbage.etp",
                                  NULL, &program),
                ETCH_INVALID_PROGRAM);
  expectFailure("empty", etch_program_load(garbage, 0, NULL, NULL, &program),
                ETCH_INVALID_PROGRAM);
  expectFailure("null path", etch_program_open(NULL, NULL, &program),
                ETCH_INVALID_ARGUMENT);

  etch_load_options_init(&options);
  EXPECT(options.struct_size == sizeof options);
  options.threads = 1;
  if (!ok("open", etch_program_open(argv[1], &options, &program)))
    return 1;
  printf("methods:");
  for (i = 0; i < etch_program_method_count(program); ++i)
    printf(" %s", etch_program_method_name(program, i));
  printf("\n");
  EXPECT(etch_program_method_name(program, 99) == NULL);
  EXPECT(etch_program_metadata(program, "no such key") == NULL);
  expectFailure("no such method", etch_method_load(program, "nope", &method),
                ETCH_NOT_FOUND);
  if (!ok("load forward", etch_method_load(program, NULL, &method)))
    return 1;
  printf("inputs %zu, outputs %zu\n", etch_method_input_count(method),
         etch_method_output_count(method));
  for (i = 0; i < etch_method_input_count(method); ++i)
    if (ok("input info", etch_method_input_info(method, i, &input)))
      printInfo("input", i, &input);
  for (i = 0; i < etch_method_output_count(method); ++i)
    if (ok("output info", etch_method_output_info(method, i, &output)))
      printInfo("output", i, &output);

  inputBytes = readFile(argv[2], &inputSize);
  if (!inputBytes ||
      !ok("input info", etch_method_input_info(method, 0, &input)) ||
      inputSize != input.nbytes) {
    fprintf(stderr, "%s: not the %zu bytes input 0 takes\n", argv[2],
            input.nbytes);
    return 1;
  }
  inputErrors(method, &input, inputBytes);
  if (!run(method, inputBytes, &first, &firstBytes))
    return 1;
  bindChecks(method, &input, inputBytes, first, firstBytes);
  for (i = 0; i < 20; ++i) { /* the same every time */
    void *repeat = NULL;
    size_t repeatBytes = 0;
    if (run(method, inputBytes, &repeat, &repeatBytes))
      EXPECT(repeatBytes == firstBytes &&
             memcmp(repeat, first, firstBytes) == 0);
    free(repeat);
  }
  etch_method_reset_state(method);

  /* The same program from memory gives the same bytes. */
  programBytes = readFile(argv[1], &programSize);
  if (ok("load from memory", etch_program_load(programBytes, programSize,
                                               argv[1], &options,
                                               &fromMemory))) {
    free(programBytes); /* the program keeps its own copy */
    programBytes = NULL;
    if (ok("load forward from memory",
           etch_method_load(fromMemory, "forward", &again)) &&
        run(again, inputBytes, &second, &secondBytes))
      EXPECT(secondBytes == firstBytes &&
             memcmp(second, first, firstBytes) == 0);
  }
  free(programBytes);

  file = fopen(argv[3], "wb");
  EXPECT(file && fwrite(first, 1, firstBytes, file) == firstBytes);
  if (file)
    fclose(file);
  printf("wrote %zu output bytes\n", firstBytes);

  etch_method_free(again);
  etch_program_free(fromMemory);
  etch_method_free(method);
  etch_program_free(program);
  etch_method_free(NULL);
  etch_program_free(NULL);
  free(first);
  free(second);
  free(inputBytes);
  printf("%s\n", failures ? "FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
