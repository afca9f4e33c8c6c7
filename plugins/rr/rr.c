/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RR.so: the requested priority on SCHED_RR, mapped into the configured
 * range per eq. 6 (ReTiF paper, section 5.3).  No admission test: the
 * implementation is common.c's, shared with FP.so.
 */
#include "common.h"

static int rr_init(const struct rtf_plugin_host *host, const struct rtf_plugin_config *config,
                   void **ret_state) {
        return prio_plugin_init(host, config, "RR", RTF_POLICY_RR, ret_state);
}

static const struct rtf_plugin_ops rr_ops = PRIO_PLUGIN_OPS("RR", rr_init);

const struct rtf_plugin_ops *rtf_plugin_entry(uint32_t host_abi_version) {
        return host_abi_version == RTF_PLUGIN_ABI_VERSION ? &rr_ops : NULL;
}
