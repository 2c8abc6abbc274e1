/* Libraries for tests/dataset/plugin_test.cc: with FUTURE_ABI, a plugin
 * built for an ABI version after this Sluice's; with NEWER_MINOR, one built
 * for a minor version after this Sluice's; with RANDOM_PLUGIN, a plugin of
 * this minor version whose function "element_seed" is random and returns
 * the seed it is given (host->element_seed) as an int64 scalar; without any,
 * a shared library with no entry point. */
#include "sluice/dataset/plugin_abi.h"

#if defined(FUTURE_ABI)
static const SluicePluginInfo kInfo = {
    .abi_version = SLUICE_PLUGIN_ABI_VERSION + 1, .name = "future", .version = "9", .num_functions = 0};
SLUICE_PLUGIN_EXPORT const SluicePluginInfo* sluice_plugin_info(void) { return &kInfo; }
#elif defined(NEWER_MINOR)
static const SluicePluginInfo kInfo = {
    .abi_version = SLUICE_PLUGIN_ABI_VERSION | ((SLUICE_PLUGIN_ABI_MINOR_VERSION + 1) << 16),
    .name = "newer",
    .version = "1",
    .num_functions = 0};
SLUICE_PLUGIN_EXPORT const SluicePluginInfo* sluice_plugin_info(void) { return &kInfo; }
#elif defined(RANDOM_PLUGIN)
static int32_t SeedSpec(void* state, const SluiceTensorSpec* inputs, int32_t num_inputs, SluiceTensorSpec* outputs,
                        int32_t* num_outputs, SluiceError* error) {
  (void)state;
  (void)inputs;
  (void)num_inputs;
  (void)error;
  outputs[0].dtype = SLUICE_DTYPE_INT64;
  outputs[0].rank = 0;
  *num_outputs = 1;
  return 0;
}

static int32_t SeedCompute(void* state, const SluiceTensor* inputs, int32_t num_inputs, SluiceTensor* outputs,
                           int32_t num_outputs, const SluiceHost* host, SluiceError* error) {
  (void)state;
  (void)inputs;
  (void)num_inputs;
  (void)num_outputs;
  (void)error;
  *(int64_t*)outputs[0].data = (int64_t)host->element_seed;
  return 0;
}

static const SluiceFunction kFunctions[] = {{.name = "element_seed", .output_spec = SeedSpec, .compute = SeedCompute}};
static const int32_t kFlags[] = {SLUICE_FUNCTION_RANDOM};
static const SluicePluginInfo kInfo = {
    .abi_version = SLUICE_PLUGIN_ABI,
    .name = "random_test",
    .version = "1",
    .num_functions = 1,
    .functions = kFunctions,
    .function_flags = kFlags,
};
SLUICE_PLUGIN_EXPORT const SluicePluginInfo* sluice_plugin_info(void) { return &kInfo; }
#else
SLUICE_PLUGIN_EXPORT int not_a_plugin(void) { return 0; }
#endif
