/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * FP.so: the requested priority on SCHED_FIFO, mapped into the configured
 * range per eq. 6 (ReTiF paper, section 5.3).  No admission test: the
 * implementation is common.c's, shared with RR.so.
 */
#include "common.h"

static int fp_init(const struct rtf_plugin_host *host, const struct rtf_plugin_config *config,
                   void **ret_state) {
        return prio_plugin_init(host, config, "FP", RTF_POLICY_FIFO, ret_state);
}

static const struct rtf_plugin_ops fp_ops = PRIO_PLUGIN_OPS("FP", fp_init);

const struct rtf_plugin_ops *rtf_plugin_entry(uint32_t host_abi_version) {
        return host_abi_version == RTF_PLUGIN_ABI_VERSION ? &fp_ops : NULL;
}
