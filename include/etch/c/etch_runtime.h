/*===- etch_runtime.h - The etch runtime's C API ------------------*- C -*-===
 *
 * Load a compiled program (an .etp file, or its bytes), list its methods,
 * query each method's inputs and outputs, set inputs, execute and read the
 * outputs, from C99 or any language with a C FFI. No exception crosses it;
 * no call aborts on bad input.
 *
 * Every call that can fail returns an etch_status*: NULL on success, else
 * a status that carries a code and the one-line message etch's tools print
 * for the same failure ("model.etp: cannot load program (InvalidProgram):
 * ..."); free it with etch_status_free. Objects are freed with their
 * _free function (NULL is accepted); a method must be freed before its
 * program. One method is used by one thread at a time; distinct methods
 * may run concurrently.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ETCH_C_ETCH_RUNTIME_H
#define ETCH_C_ETCH_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ETCH_C_API_VERSION 1
/* The most dims a tensor has. */
#define ETCH_MAX_RANK 8

/* Status codes: the runtime's error kinds. */
typedef enum etch_code {
  ETCH_OK = 0,
  ETCH_INTERNAL = 0x01,
  ETCH_NOT_SUPPORTED = 0x02,
  ETCH_NOT_IMPLEMENTED = 0x03,
  ETCH_INVALID_ARGUMENT = 0x10,
  ETCH_INVALID_TYPE = 0x11,
  ETCH_INVALID_SHAPE = 0x12,
  ETCH_INDEX_OUT_OF_RANGE = 0x13,
  ETCH_MEMORY_ALLOCATION_FAILED = 0x20,
  ETCH_ACCESS_FAILED = 0x21,
  ETCH_NOT_FOUND = 0x22,
  ETCH_INVALID_PROGRAM = 0x30,
  ETCH_PROGRAM_VERSION_MISMATCH = 0x31,
  ETCH_OPERATOR_MISSING = 0x32,
  ETCH_INVALID_WEIGHTS = 0x33,
  ETCH_WEIGHTS_MISMATCH = 0x34,
  ETCH_DELEGATE_INVALID_BLOB = 0x40,
  ETCH_DELEGATE_INIT_FAILED = 0x41,
  ETCH_DELEGATE_EXECUTE_FAILED = 0x42,
  ETCH_DELEGATE_MISSING = 0x43
} etch_code;

/* Element types, as programs store them. */
typedef enum etch_dtype {
  ETCH_FLOAT32 = 0,
  ETCH_FLOAT16 = 1,
  ETCH_FLOAT64 = 2,
  ETCH_BFLOAT16 = 3,
  ETCH_INT8 = 4,
  ETCH_UINT8 = 5,
  ETCH_INT16 = 6,
  ETCH_INT32 = 7,
  ETCH_INT64 = 8,
  ETCH_BOOL = 9,
  ETCH_UINT16 = 10,
  ETCH_UINT32 = 11,
  ETCH_UINT64 = 12
} etch_dtype;

typedef struct etch_status etch_status;
typedef struct etch_program etch_program;
typedef struct etch_method etch_method;

/* How a program is loaded. Initialize with etch_load_options_init, then
 * set what you need (later versions add fields at the end). */
typedef struct etch_load_options {
  uint32_t struct_size;
  /* Threads the CPU kernels and delegates of this program's methods use;
   * 0: the machine's cores. The CPU kernels share one pool per process,
   * which the method loaded last sizes. */
  uint32_t threads;
  /* Non-zero: delegates time their own steps (as et-run --profile). */
  int32_t profile_delegates;
  /* The program's external weights file (et-compile --external-weights);
   * NULL: etch_program_open looks beside the program for the file it was
   * compiled against. Programs loaded with the same file share its
   * mapping. */
  const char *weights_path;
} etch_load_options;

/* A tensor as a method declares it (inputs) or holds it now (outputs). */
typedef struct etch_tensor_info {
  const char *name; /* the producer's name; owned by the method */
  etch_dtype dtype;
  int32_t rank;
  int64_t sizes[ETCH_MAX_RANK];     /* current extents */
  int64_t min_sizes[ETCH_MAX_RANK]; /* inputs: bounds of each dim (equal */
  int64_t max_sizes[ETCH_MAX_RANK]; /* for static dims); outputs: sizes */
  size_t nbytes;                    /* of the current extents */
} etch_tensor_info;

/* --- status ------------------------------------------------------------ */
etch_code etch_status_code(const etch_status *status);
/* The one-line message; "" for NULL. Owned by the status. */
const char *etch_status_message(const etch_status *status);
void etch_status_free(etch_status *status);

/* "float32", "int64", ... */
const char *etch_dtype_name(etch_dtype dtype);
/* Bytes per element; 0 for a value outside the enum. */
size_t etch_dtype_size(etch_dtype dtype);
/* "1.0.0": the runtime's version. */
const char *etch_version(void);

/* --- programs ---------------------------------------------------------- */
void etch_load_options_init(etch_load_options *options);

/* Maps the file at path read-only and verifies it. options may be NULL. */
etch_status *etch_program_open(const char *path,
                               const etch_load_options *options,
                               etch_program **program);
/* Copies size bytes at data and verifies them; name stands for the file in
 * messages (NULL: "<memory>"). */
etch_status *etch_program_load(const void *data, size_t size,
                               const char *name,
                               const etch_load_options *options,
                               etch_program **program);
void etch_program_free(etch_program *program);

size_t etch_program_method_count(const etch_program *program);
/* NULL past the last method. */
const char *etch_program_method_name(const etch_program *program,
                                     size_t index);
/* The compile-time metadata entry key ("max_context", ...), or NULL. */
const char *etch_program_metadata(const etch_program *program,
                                  const char *key);

/* --- methods ----------------------------------------------------------- */
/* Plans and allocates the named method ("forward" when name is NULL). */
etch_status *etch_method_load(const etch_program *program, const char *name,
                              etch_method **method);
void etch_method_free(etch_method *method);

/* State shared between methods: methods loaded with one etch_state use the
 * same state buffers (KV caches) by name, as prefill and decode of one
 * sequence do (et-compile --method). Free it after those methods. */
typedef struct etch_state etch_state;
etch_status *etch_state_create(etch_state **state);
void etch_state_free(etch_state *state);
/* etch_method_load, with the method's state buffers those of state. */
etch_status *etch_method_load_shared(const etch_program *program,
                                     const char *name, etch_state *state,
                                     etch_method **method);

size_t etch_method_input_count(const etch_method *method);
size_t etch_method_output_count(const etch_method *method);
etch_status *etch_method_input_info(const etch_method *method, size_t index,
                                    etch_tensor_info *info);
/* An output's extents as the last execute left them (before the first
 * execute: as planned). */
etch_status *etch_method_output_info(const etch_method *method, size_t index,
                                     etch_tensor_info *info);

/* Copies nbytes at data into input index after checking the dtype, the
 * rank and each dim against its bounds (a dynamic dim takes any size
 * within them) and that nbytes fits the shape. */
etch_status *etch_method_set_input(etch_method *method, size_t index,
                                   etch_dtype dtype, const int64_t *sizes,
                                   int32_t rank, const void *data,
                                   size_t nbytes);
/* etch_method_set_input without the copy where the method allows it: when
 * only kernels read the input (no delegate reads it, no instruction writes
 * it, it is no output) and data is ETCH_TENSOR_ALIGNMENT-aligned, the input
 * points at data, which must stay valid and unchanged until the next
 * etch_method_execute returns; else the bytes are copied. *bound (may be
 * NULL) is 1 when it bound, 0 when it copied. The same checks and errors as
 * etch_method_set_input. */
#define ETCH_TENSOR_ALIGNMENT 64
etch_status *etch_method_bind_input(etch_method *method, size_t index,
                                    etch_dtype dtype, const int64_t *sizes,
                                    int32_t rank, const void *data,
                                    size_t nbytes, int *bound);
/* Runs the method on the inputs set so far. */
etch_status *etch_method_execute(etch_method *method);
/* Output index's bytes, valid until the next execute or free. */
etch_status *etch_method_output_data(const etch_method *method, size_t index,
                                     const void **data, size_t *nbytes);
/* Copies output index into buffer (capacity bytes at least its nbytes). */
etch_status *etch_method_copy_output(const etch_method *method, size_t index,
                                     void *buffer, size_t capacity);
/* State the method keeps between executes (a KV cache) back to its
 * initial contents. */
void etch_method_reset_state(etch_method *method);

#ifdef __cplusplus
}
#endif

#endif /* ETCH_C_ETCH_RUNTIME_H */
