/* Libraries that are not loadable plugins, for tests/dataset/plugin_test.cc:
 * with FUTURE_ABI, a plugin built for an ABI version after this Sluice's;
 * without, a shared library with no entry point. */
#include "sluice/dataset/plugin_abi.h"

#ifdef FUTURE_ABI
static const SluicePluginInfo kInfo = {
    .abi_version = SLUICE_PLUGIN_ABI_VERSION + 1, .name = "future", .version = "9", .num_functions = 0};
SLUICE_PLUGIN_EXPORT const SluicePluginInfo* sluice_plugin_info(void) { return &kInfo; }
#else
SLUICE_PLUGIN_EXPORT int not_a_plugin(void) { return 0; }
#endif
