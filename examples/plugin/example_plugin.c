/* An example Sluice plugin (dataset/plugin_abi.h): three element functions
 * in plain C, built as a shared library by examples/plugin/CMakeLists.txt.
 *   clip_and_scale(lo, hi, scale): float32 x -> clamp(x, lo, hi) * scale, any shape;
 *   repeat_string(times):          each string repeated `times` times, any shape;
 *   is_nonempty:                   a string scalar -> bool scalar (a predicate).
 * A spec names them as
 *   map { fn { named { name: "clip_and_scale" args { key: "hi" value { float_value: 1 } }
 *                      plugin { path: "libsluice_example_plugin.so" name: "example" version: "1.0" } } } } */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice/dataset/plugin_abi.h"

static int32_t Fail(SluiceError* error, const char* message) {
  snprintf(error->message, sizeof(error->message), "%s", message);
  return 1;
}

/* Checks the inputs are one component of `dtype`. */
static int32_t ExpectOne(const SluiceTensorSpec* inputs, int32_t num_inputs, int32_t dtype, const char* what,
                         SluiceError* error) {
  if (num_inputs != 1 || inputs[0].dtype != dtype) {
    snprintf(error->message, sizeof(error->message), "expects one %s component", what);
    return 1;
  }
  return 0;
}

/* ---- clip_and_scale ---- */
typedef struct ClipAndScale {
  float lo, hi, scale;
} ClipAndScale;

static int32_t ClipCreate(const SluiceArgument* args, int32_t num_args, void** state, SluiceError* error) {
  ClipAndScale s = {0.0f, 1.0f, 1.0f};
  for (int32_t i = 0; i < num_args; ++i) {
    float* field = strcmp(args[i].name, "lo") == 0      ? &s.lo
                   : strcmp(args[i].name, "hi") == 0    ? &s.hi
                   : strcmp(args[i].name, "scale") == 0 ? &s.scale
                                                        : NULL;
    if (field == NULL) {
      snprintf(error->message, sizeof(error->message), "unknown argument '%s' (it takes lo, hi, scale)", args[i].name);
      return 1;
    }
    if (args[i].kind == SLUICE_ARGUMENT_FLOAT) {
      *field = (float)args[i].float_value;
    } else if (args[i].kind == SLUICE_ARGUMENT_INT) {
      *field = (float)args[i].int_value;
    } else {
      snprintf(error->message, sizeof(error->message), "argument '%s' must be a number", args[i].name);
      return 1;
    }
  }
  if (!(s.lo <= s.hi)) return Fail(error, "lo must not be above hi");
  ClipAndScale* copy = malloc(sizeof(ClipAndScale));
  if (copy == NULL) return Fail(error, "out of memory");
  *copy = s;
  *state = copy;
  return 0;
}

static void Free(void* state) { free(state); }

/* The output has the input's dtype, shape and name. */
static int32_t SameSpec(void* state, const SluiceTensorSpec* inputs, int32_t num_inputs, SluiceTensorSpec* outputs,
                        int32_t* num_outputs, SluiceError* error) {
  (void)state;
  (void)num_inputs;
  (void)error;
  outputs[0] = inputs[0];
  *num_outputs = 1;
  return 0;
}

static int32_t ClipSpec(void* state, const SluiceTensorSpec* inputs, int32_t num_inputs, SluiceTensorSpec* outputs,
                        int32_t* num_outputs, SluiceError* error) {
  if (ExpectOne(inputs, num_inputs, SLUICE_DTYPE_FLOAT32, "float32", error) != 0) return 1;
  return SameSpec(state, inputs, num_inputs, outputs, num_outputs, error);
}

/* Outputs with unknown dims take the input's shape. */
static int32_t SameShape(void* state, const SluiceTensor* inputs, int32_t num_inputs, SluiceTensorSpec* outputs,
                         int32_t num_outputs, SluiceError* error) {
  (void)state;
  (void)num_inputs;
  (void)num_outputs;
  (void)error;
  outputs[0].rank = inputs[0].rank;
  memcpy(outputs[0].dims, inputs[0].dims, sizeof(inputs[0].dims));
  return 0;
}

static int32_t ClipCompute(void* state, const SluiceTensor* inputs, int32_t num_inputs, SluiceTensor* outputs,
                           int32_t num_outputs, const SluiceHost* host, SluiceError* error) {
  (void)num_inputs;
  (void)num_outputs;
  (void)host;
  const ClipAndScale* s = state;
  const float* in = inputs[0].data;
  float* out = outputs[0].data;
  const uint64_t n = inputs[0].byte_size / sizeof(float);
  for (uint64_t i = 0; i < n; ++i) {
    if (in[i] != in[i]) return Fail(error, "input holds NaN");
    const float clipped = in[i] < s->lo ? s->lo : (in[i] > s->hi ? s->hi : in[i]);
    out[i] = clipped * s->scale;
  }
  return 0;
}

/* ---- repeat_string ---- */
static int32_t RepeatCreate(const SluiceArgument* args, int32_t num_args, void** state, SluiceError* error) {
  int64_t times = 2;
  for (int32_t i = 0; i < num_args; ++i) {
    if (strcmp(args[i].name, "times") != 0 || args[i].kind != SLUICE_ARGUMENT_INT) {
      return Fail(error, "takes one integer argument, times");
    }
    times = args[i].int_value;
  }
  if (times < 0 || times > 1000) return Fail(error, "times must be 0 to 1000");
  int64_t* copy = malloc(sizeof(int64_t));
  if (copy == NULL) return Fail(error, "out of memory");
  *copy = times;
  *state = copy;
  return 0;
}

static int32_t RepeatSpec(void* state, const SluiceTensorSpec* inputs, int32_t num_inputs, SluiceTensorSpec* outputs,
                          int32_t* num_outputs, SluiceError* error) {
  if (ExpectOne(inputs, num_inputs, SLUICE_DTYPE_STRING, "string", error) != 0) return 1;
  return SameSpec(state, inputs, num_inputs, outputs, num_outputs, error);
}

static int32_t RepeatCompute(void* state, const SluiceTensor* inputs, int32_t num_inputs, SluiceTensor* outputs,
                             int32_t num_outputs, const SluiceHost* host, SluiceError* error) {
  (void)num_inputs;
  (void)num_outputs;
  (void)outputs;
  const int64_t times = *(const int64_t*)state;
  const SluiceStringView* in = inputs[0].data;
  const uint64_t n = inputs[0].byte_size / sizeof(SluiceStringView);
  for (uint64_t i = 0; i < n; ++i) {
    if (in[i].size > (1u << 20)) return Fail(error, "a string is longer than 1 MiB");
    char* repeated = malloc(in[i].size * (uint64_t)times + 1);
    if (repeated == NULL) return Fail(error, "out of memory");
    for (int64_t k = 0; k < times; ++k) memcpy(repeated + (uint64_t)k * in[i].size, in[i].data, in[i].size);
    const int32_t failed = host->set_string(host->context, 0, i, repeated, in[i].size * (uint64_t)times);
    free(repeated);
    if (failed != 0) return Fail(error, "set_string failed");
  }
  return 0;
}

/* ---- is_nonempty ---- */
static int32_t NonemptySpec(void* state, const SluiceTensorSpec* inputs, int32_t num_inputs, SluiceTensorSpec* outputs,
                            int32_t* num_outputs, SluiceError* error) {
  (void)state;
  if (ExpectOne(inputs, num_inputs, SLUICE_DTYPE_STRING, "string", error) != 0) return 1;
  if (inputs[0].rank != 0) return Fail(error, "expects a string scalar");
  outputs[0].dtype = SLUICE_DTYPE_BOOL;
  outputs[0].rank = 0;
  outputs[0].name = "nonempty";
  *num_outputs = 1;
  return 0;
}

static int32_t NonemptyCompute(void* state, const SluiceTensor* inputs, int32_t num_inputs, SluiceTensor* outputs,
                               int32_t num_outputs, const SluiceHost* host, SluiceError* error) {
  (void)state;
  (void)num_inputs;
  (void)num_outputs;
  (void)host;
  (void)error;
  const SluiceStringView* in = inputs[0].data;
  *(uint8_t*)outputs[0].data = in[0].size > 0;
  return 0;
}

static const SluiceFunction kFunctions[] = {
    {.name = "clip_and_scale", .row_wise = 1, .create = ClipCreate, .destroy = Free, .output_spec = ClipSpec,
     .output_shape = SameShape, .compute = ClipCompute},
    {.name = "repeat_string", .row_wise = 1, .create = RepeatCreate, .destroy = Free, .output_spec = RepeatSpec,
     .output_shape = SameShape, .compute = RepeatCompute},
    {.name = "is_nonempty", .output_spec = NonemptySpec, .compute = NonemptyCompute},
};

static const SluicePluginInfo kInfo = {
    .abi_version = SLUICE_PLUGIN_ABI_VERSION,
    .name = "example",
    .version = "1.0",
    .num_functions = sizeof(kFunctions) / sizeof(kFunctions[0]),
    .functions = kFunctions,
};

SLUICE_PLUGIN_EXPORT const SluicePluginInfo* sluice_plugin_info(void) { return &kInfo; }
