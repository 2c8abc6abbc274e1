/* The C interface between Sluice and a plugin: a shared library of element
 * functions that a pipeline spec names by path (dataset/plugin.h loads it).
 * C only and versioned, so a plugin built by another compiler, or against
 * another Sluice release with the same SLUICE_PLUGIN_ABI_VERSION, loads.
 *
 * A plugin exports one function, sluice_plugin_info, returning a static
 * SluicePluginInfo: the ABI version it was built for (always the first
 * field, so a host reads it before anything else), the plugin's name and
 * version, and its functions. The host never unloads a plugin.
 *
 * Each function has
 *  - create (optional): makes the function's state from the arguments a
 *    spec gives it (NamedFunction.args); destroy frees it;
 *  - output_spec: the dtype and shape (-1: unknown) of each output for the
 *    dtypes and shapes of the inputs, when a pipeline is built;
 *  - output_shape (needed when output_spec leaves a dimension unknown): the
 *    exact shapes of one element's outputs;
 *  - compute: fills the outputs of one element (or, for a row_wise
 *    function, of a run of elements stacked along a new leading dimension).
 * The host allocates every output with the shape declared for it (so the
 * bytes are the pipeline's own, counted as any other element's), zeroes
 * numeric ones, and passes them to compute to fill. String outputs have no
 * data pointer: compute sets each string with host->set_string, which copies.
 * String inputs are arrays of SluiceStringView.
 *
 * Errors: a callback returns 0 on success; otherwise it writes a message
 * into error->message (NUL-terminated, truncated to its size) and returns
 * non-zero. A compute error becomes that element's error, naming the plugin
 * and the function; a create or output_spec error fails the pipeline's
 * construction.
 *
 * Thread safety: the host may call output_spec, output_shape and compute
 * concurrently with the same state, so state must be read-only after
 * create. Pointers passed to a callback are valid only during the call.
 */
#ifndef SLUICE_DATASET_PLUGIN_ABI_H_
#define SLUICE_DATASET_PLUGIN_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SLUICE_PLUGIN_ABI_VERSION 1
/* Minor versions add fields at the ends of structs, which plugins built for
 * an earlier minor version do without. A plugin states the minor version it
 * was built for in the upper 16 bits of abi_version (SLUICE_PLUGIN_ABI);
 * 0 there is a plugin built before minor versions existed. The host loads
 * plugins of its major version and of minor versions up to its own, and
 * reads only the fields that a plugin's minor version has.
 * Minor 1: SluicePluginInfo.function_flags and SluiceHost.element_seed. */
#define SLUICE_PLUGIN_ABI_MINOR_VERSION 1
#define SLUICE_PLUGIN_ABI (SLUICE_PLUGIN_ABI_VERSION | (SLUICE_PLUGIN_ABI_MINOR_VERSION << 16))
/* The symbol a plugin exports (dlsym name). */
#define SLUICE_PLUGIN_ENTRY_POINT "sluice_plugin_info"
#define SLUICE_PLUGIN_MAX_RANK 8
#define SLUICE_PLUGIN_MAX_COMPONENTS 16
#define SLUICE_PLUGIN_ERROR_BYTES 1024

#if defined(_WIN32)
#define SLUICE_PLUGIN_EXPORT __declspec(dllexport)
#else
#define SLUICE_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Element types, numbered as Sluice's DType. */
enum {
  SLUICE_DTYPE_BOOL = 0, /* one byte, 0 or 1 */
  SLUICE_DTYPE_UINT8 = 1,
  SLUICE_DTYPE_INT32 = 2,
  SLUICE_DTYPE_INT64 = 3,
  SLUICE_DTYPE_FLOAT16 = 4,  /* IEEE 754 half, as its uint16_t bit pattern */
  SLUICE_DTYPE_BFLOAT16 = 5, /* as its uint16_t bit pattern */
  SLUICE_DTYPE_FLOAT32 = 6,
  SLUICE_DTYPE_FLOAT64 = 7,
  SLUICE_DTYPE_STRING = 8 /* byte strings: SluiceStringView in, set_string out */
};

/* The dtype and shape of one component. rank -1: unknown rank; a dim of -1:
 * unknown size. `name` is the component's name ("" for a positional one);
 * an output's name may be NULL or "" (positional). */
typedef struct SluiceTensorSpec {
  int32_t dtype;
  int32_t rank;
  int64_t dims[SLUICE_PLUGIN_MAX_RANK];
  const char* name;
} SluiceTensorSpec;

typedef struct SluiceStringView {
  const char* data;
  uint64_t size;
} SluiceStringView;

/* One component's values, row-major. Numeric: `data` holds byte_size bytes
 * (the element count times the dtype's size). String inputs: `data` points
 * to one SluiceStringView per element; string outputs: `data` is NULL. */
typedef struct SluiceTensor {
  int32_t dtype;
  int32_t rank;
  int64_t dims[SLUICE_PLUGIN_MAX_RANK];
  void* data;
  uint64_t byte_size;
} SluiceTensor;

/* What the host offers compute. */
typedef struct SluiceHost {
  void* context;
  /* Copies `size` bytes as element `index` of string output `output`;
   * non-zero when that output is not a string or the index is out of range. */
  int32_t (*set_string)(void* context, int32_t output, uint64_t index, const char* data,
                        uint64_t size);
  /* Minor 1. For a SLUICE_FUNCTION_RANDOM function: the element's seed,
   * which map derives from (the function's seed, map's iterator, the
   * element's position in map's input); 0 for other functions. */
  uint64_t element_seed;
} SluiceHost;

typedef struct SluiceError {
  char message[SLUICE_PLUGIN_ERROR_BYTES];
} SluiceError;

enum {
  SLUICE_ARGUMENT_INT = 0,    /* int_value */
  SLUICE_ARGUMENT_FLOAT = 1,  /* float_value */
  SLUICE_ARGUMENT_STRING = 2, /* string_value, string_size bytes */
  SLUICE_ARGUMENT_BOOL = 3    /* int_value, 0 or 1 */
};

/* One argument from the spec, by name. */
typedef struct SluiceArgument {
  const char* name;
  int32_t kind;
  int64_t int_value;
  double float_value;
  const char* string_value;
  uint64_t string_size;
} SluiceArgument;

typedef struct SluiceFunction {
  const char* name;
  /* Non-zero: compute over k stacked elements equals compute over each,
   * stacked, so a map may pass whole runs. */
  int32_t row_wise;
  /* Optional (NULL: the function takes no arguments and has NULL state). */
  int32_t (*create)(const SluiceArgument* args, int32_t num_args, void** state, SluiceError* error);
  void (*destroy)(void* state);
  /* Fills outputs[0 .. *num_outputs) (at most SLUICE_PLUGIN_MAX_COMPONENTS). */
  int32_t (*output_spec)(void* state, const SluiceTensorSpec* inputs, int32_t num_inputs,
                         SluiceTensorSpec* outputs, int32_t* num_outputs, SluiceError* error);
  /* Optional: the rank and dims of each output for these inputs, where the
   * output spec has unknown ones. outputs[] arrive filled with that spec. */
  int32_t (*output_shape)(void* state, const SluiceTensor* inputs, int32_t num_inputs,
                          SluiceTensorSpec* outputs, int32_t num_outputs, SluiceError* error);
  int32_t (*compute)(void* state, const SluiceTensor* inputs, int32_t num_inputs,
                     SluiceTensor* outputs, int32_t num_outputs, const SluiceHost* host,
                     SluiceError* error);
} SluiceFunction;

/* Function flags (SluicePluginInfo.function_flags). */
enum {
  /* compute draws its random numbers from host->element_seed only, so its
   * outputs do not depend on parallelism or a restore. Not row_wise. */
  SLUICE_FUNCTION_RANDOM = 1
};

typedef struct SluicePluginInfo {
  uint32_t abi_version; /* SLUICE_PLUGIN_ABI (major and minor); first, whatever the version */
  const char* name;     /* the plugin's name, as specs name it */
  const char* version;  /* the plugin's version, as specs record it */
  int32_t num_functions;
  const SluiceFunction* functions;
  /* Minor 1, may be NULL (no flags): num_functions values, one per function,
   * each an OR of SLUICE_FUNCTION_ flags. */
  const int32_t* function_flags;
} SluicePluginInfo;

/* The entry point: a pointer to static data, valid while the library is
 * loaded. */
typedef const SluicePluginInfo* (*SluicePluginEntry)(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  /* SLUICE_DATASET_PLUGIN_ABI_H_ */
