// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters and registration (spec sections 2 and 14), through the
 * shim's registry: shim_param_load() is what insmod's parse_args() does,
 * shim_param_write() a write to /sys/module/tcp_cdg/parameters/NAME.
 * The load-time checks run first, before module init, as at insmod.
 */
#include <stdio.h>

#include "testlib.h"

static char buf[PAGE_SIZE];

static const char *rd(const char *impl, const char *name)
{
	if (shim_param_read(impl, name, buf) < 0)
		return "(error)";
	return buf;
}

static void defaults(const struct cdg_impl *impl)
{
	static const char *const want[][2] = {
		{ "window", "8\n" }, { "backoff_beta", "724\n" }, { "backoff_factor", "42\n" },
		{ "hystart_detect", "3\n" }, { "use_ineff", "5\n" }, { "use_shadow", "Y\n" },
		{ "use_tolerance", "N\n" },
	};
	bool ok = true;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		const struct kernel_param *kp = shim_param_find(impl->name, want[i][0]);

		if (strcmp(rd(impl->name, want[i][0]), want[i][1]) || !kp ||
		    kp->perm != (i == 0 ? 0444 : 0644)) {
			tap_diag("%s %s = %s", impl->name, want[i][0], buf);
			ok = false;
		}
	}
	tap_ok(ok, "%s defaults and permissions: window=8 (0444), backoff_beta=724, "
	       "backoff_factor=42, hystart_detect=3, use_ineff=5, use_shadow=Y, "
	       "use_tolerance=N (0644)", impl->name);
}

/* Each (name, value) -> errno at load, the old value kept on error. */
struct pcase {
	const char *name, *val;
	int err;
	const char *logged;	/* a pr_err naming the parameter, or NULL */
};

static void load_rules(void)
{
	static const struct pcase c[] = {
		{ "window", "0", -ERANGE, "window" }, { "window", "257", -ERANGE, "window" },
		{ "window", "-1", -ERANGE, "window" }, { "window", "512", -ERANGE, "window" },
		{ "window", "3", -EINVAL, "window" }, { "window", "100", -EINVAL, "window" },
		{ "window", "abc", -EINVAL, "window" }, { "window", "", -EINVAL, "window" },
		{ "backoff_beta", "1025", -ERANGE, "backoff_beta" },
		{ "backoff_beta", "4294967296", -EINVAL, "backoff_beta" },
		{ "backoff_beta", "-1", -EINVAL, "backoff_beta" },
		{ "backoff_factor", "1000001", -ERANGE, "backoff_factor" },
		{ "hystart_detect", "4", -ERANGE, "hystart_detect" },
		{ "use_ineff", "256", -ERANGE, "use_ineff" },
		{ "use_shadow", "maybe", -EINVAL, NULL },
		{ "use_tolerance", "2", -EINVAL, NULL },
	};
	bool ok = true, logged = true;
	size_t i;
	int w;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		char before[PAGE_SIZE];
		int err;

		snprintf(before, sizeof(before), "%s", rd("ours", c[i].name));
		shim_log_clear();
		err = shim_param_load("ours", c[i].name, c[i].val);
		if (err != c[i].err || strcmp(before, rd("ours", c[i].name))) {
			tap_diag("ours load %s=%s: %d, expected %d (now %s)", c[i].name,
				 c[i].val, err, c[i].err, buf);
			ok = false;
		}
		if (c[i].logged && !shim_log_find("ours", c[i].logged)) {
			tap_diag("ours load %s=%s: no pr_err naming it", c[i].name, c[i].val);
			logged = false;
		}
	}
	tap_ok(ok, "ours load-time rules: window 1..256 else -ERANGE, not a power of two "
	       "-EINVAL, backoff_beta > 1024 -ERANGE (and ours' own limits: factor <= 10^6, "
	       "hystart_detect <= 3, use_ineff <= 255); the old value is kept");
	tap_ok(logged, "ours every refused load value is logged with the parameter's name");
	ok = true;
	for (w = 1; w <= 256; w *= 2) {
		char v[16];

		snprintf(v, sizeof(v), "%d", w);
		ok &= shim_param_load("ours", "window", v) == 0 && *impl_ours.window == w;
	}
	ok &= shim_param_load("ours", "backoff_beta", "1024") == 0 &&
	      shim_param_load("ours", "backoff_beta", "0") == 0 &&
	      shim_param_load("ours", "backoff_beta", "0x2d4") == 0 &&
	      !strcmp(rd("ours", "backoff_beta"), "724\n");
	tap_ok(ok, "ours every power of two 1..256 loads; backoff_beta 0, 1024, 0x2d4 load");
	shim_param_load("ours", "window", "8");
}

/* The oracle checks window and backoff_beta in its module init. */
static void oracle_load_rules(void)
{
	static const struct { const char *window, *beta; int err; } c[] = {
		{ "0", "724", -ERANGE }, { "257", "724", -ERANGE }, { "3", "724", -EINVAL },
		{ "8", "1025", -ERANGE }, { "8", "1024", 0 },
	};
	bool ok = true;
	size_t i;

	if (!impl_oracle.available) {
		tap_skip("linux-source-6.1 not installed", "oracle load-time rules");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		int err;

		shim_param_load("oracle", "window", c[i].window);
		shim_param_load("oracle", "backoff_beta", c[i].beta);
		err = impl_oracle.module_init();
		ok &= err == c[i].err && (err || shim_cc_registered() == 1);
		if (!err)
			impl_oracle.module_exit();
	}
	tap_ok(ok && !shim_cc_registered(),
	       "oracle load-time rules (checked in its init): the same errnos as ours");
	shim_param_load("oracle", "window", "8");
	shim_param_load("oracle", "backoff_beta", "724");
}

static void runtime_rules(void)
{
	static const struct pcase c[] = {
		{ "backoff_beta", "5000", -EINVAL, "backoff_beta" },
		{ "backoff_beta", "1025\n", -EINVAL, "backoff_beta" },
		{ "backoff_beta", "abc", -EINVAL, "backoff_beta" },
		{ "backoff_beta", "-1", -EINVAL, "backoff_beta" },
		{ "backoff_factor", "1000001", -EINVAL, "backoff_factor" },
		{ "hystart_detect", "4", -EINVAL, "hystart_detect" },
		{ "use_ineff", "256", -EINVAL, "use_ineff" },
		{ "use_shadow", "maybe", -EINVAL, NULL },
		{ "use_tolerance", "", -EINVAL, NULL },
	};
	bool ok = true, logged = true;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		char before[PAGE_SIZE];
		int err;

		snprintf(before, sizeof(before), "%s", rd("ours", c[i].name));
		shim_log_clear();
		err = shim_param_write("ours", c[i].name, c[i].val);
		if (err != c[i].err || strcmp(before, rd("ours", c[i].name))) {
			tap_diag("ours write %s=%s: %d, expected %d (now %s)", c[i].name,
				 c[i].val, err, c[i].err, buf);
			ok = false;
		}
		if (c[i].logged && !shim_log_find("ours", c[i].logged))
			logged = false;
	}
	tap_ok(ok, "ours runtime: a bad write is -EINVAL and keeps the old value "
	       "(backoff_beta=5000 is refused)");
	tap_ok(logged, "ours runtime: every refused write is logged with the parameter's name");
	ok = shim_param_write("ours", "backoff_beta", "1024\n") == 0 &&
	     !strcmp(rd("ours", "backoff_beta"), "1024\n") &&
	     shim_param_write("ours", "backoff_factor", "0x10") == 0 &&
	     !strcmp(rd("ours", "backoff_factor"), "16\n") &&
	     shim_param_write("ours", "use_shadow", "n") == 0 &&
	     !strcmp(rd("ours", "use_shadow"), "N\n") &&
	     shim_param_write("ours", "use_tolerance", "on") == 0 &&
	     !strcmp(rd("ours", "use_tolerance"), "Y\n");
	tap_ok(ok, "ours runtime: good writes are taken (kstrtouint base 0, trailing newline, "
	       "kstrtobool y/n/on/off)");
	tap_ok(shim_param_write("ours", "window", "16") == -EACCES && *impl_ours.window == 8,
	       "ours window is read-only after load (0444: -EACCES)");
	t_params_set(&impl_ours, &(struct t_params){ 0 });

	if (!impl_oracle.available)
		return;
	/* Spec 2: the in-tree module takes any value and clamps some on use. */
	tap_ok(shim_param_write("oracle", "backoff_beta", "5000") == 0 &&
	       !strcmp(rd("oracle", "backoff_beta"), "5000\n"),
	       "oracle runtime: backoff_beta=5000 is stored (as spec 2 says of the in-tree module)");
	{
		struct tsock s;
		struct cdg_view v;
		u32 got;

		t_open(&s, &impl_oracle, 100, 1);
		t_view(&s, &v);
		v.state = CDG_S_BACKOFF;
		impl_oracle.set(tsk(&s), &v);
		got = impl_oracle.ops->ssthresh(tsk(&s));
		t_close(&s);
		tap_ok(got == 100, "oracle clamps it on use: BACKOFF ssthresh of cwnd 100 = %u", got);
	}
	t_params_set(&impl_oracle, &(struct t_params){ 0 });
}

static u32 dummy_ssthresh(struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

static struct tcp_congestion_ops intree = {
	.ssthresh = dummy_ssthresh,
	.cong_avoid = tcp_reno_cong_avoid,
	.undo_cwnd = tcp_reno_undo_cwnd,
	.name = "cdg",
};

static void registration(void)
{
	long bad0;
	int err;

	impl_ours.module_exit();
	tap_ok(!tcp_ca_find("cdg"), "ours module exit unregisters \"cdg\"");
	tcp_register_congestion_control(&intree);	/* the in-tree tcp_cdg */
	shim_log_clear();
	err = impl_ours.module_init();
	tap_ok(err == -EEXIST, "ours module init with \"cdg\" already registered: -EEXIST (%d)",
	       err);
	tap_ok(shim_log_find("ours", "cdg") && shim_log_find("ours", "already registered"),
	       "ours ... with a log line naming what is registered: %s",
	       shim_log_find("ours", "cdg") ? shim_log_find("ours", "cdg") : "(none)");
	tap_ok(tcp_ca_find("cdg") == &intree && !shim_pernet_registered() &&
	       !shim_proc_entries() && shim_mem.live == 0,
	       "ours ... and leaves nothing behind (no pernet, proc file or memory)");
	if (impl_oracle.available) {
		bad0 = shim_cc_bad_unregisters;
		err = impl_oracle.module_init();
		tap_ok(err == 0, "oracle module init ignores the -EEXIST (spec 14: "
		       "\"the in-tree module ignores its result\")");
		impl_oracle.module_exit();
		tap_diag("spec/oracle note: the oracle's exit then unregisters an ops it never "
			 "registered (%ld): in the kernel a list_del_rcu() of an unlinked entry",
			 shim_cc_bad_unregisters - bad0);
	}
	tcp_unregister_congestion_control(&intree);
	err = impl_ours.module_init();
	tap_ok(!err && tcp_ca_find("cdg") == impl_ours.ops && shim_pernet_registered() == 1,
	       "ours module init once \"cdg\" is free: registered");
}

int main(void)
{
	const char *ver;

	defaults(&impl_ours);
	if (impl_oracle.available)
		defaults(&impl_oracle);
	load_rules();
	oracle_load_rules();
	t_modules_load();
	runtime_rules();
	registration();

	/*
	 * The errno is the caller's (load_module()'s argument parsing while
	 * the module is COMING, or sysfs once it is LIVE), not a flag that
	 * some earlier init left set: a load after an unload is -ERANGE.
	 */
	{
		int unloaded, live, reloaded;

		impl_ours.module_exit();
		unloaded = shim_param_load("ours", "backoff_beta", "1025");
		impl_ours.module_init();
		live = shim_param_write("ours", "backoff_beta", "1025");
		impl_ours.module_exit();
		reloaded = shim_param_load("ours", "use_ineff", "256");
		impl_ours.module_init();
		tap_ok(unloaded == -ERANGE && live == -EINVAL && reloaded == -ERANGE,
		       "ours out of range: -ERANGE at load after an unload (%d), -EINVAL "
		       "through sysfs (%d), -ERANGE at the next load (%d)", unloaded, live,
		       reloaded);
	}

	tap_ok(shim_param_write("ours", "no_such_param", "1") == -ENOENT &&
	       shim_param_load("nobody", "window", "8") == -ENOENT &&
	       shim_param_read("ours", "", buf) == -ENOENT,
	       "registry: an unknown implementation or parameter is -ENOENT with a message");
	ver = shim_modinfo("ours", "version");
	tap_ok(ver && !strcmp(shim_modinfo("ours", "license"), "GPL") &&
	       !strcmp(ver, TCP_CDG_VERSION_TEST),
	       "ours MODULE_LICENSE(\"GPL\"), MODULE_VERSION from dkms.conf (%s)", ver ? ver : "?");
	/* No person to name: the authors are the project's contributors. */
	tap_ok(shim_modinfo("ours", "author") &&
	       !strcmp(shim_modinfo("ours", "author"), "tcp_cdg contributors"),
	       "ours MODULE_AUTHOR(\"tcp_cdg contributors\") (%s)",
	       shim_modinfo("ours", "author") ? shim_modinfo("ours", "author") : "none");
	tap_ok(impl_ours.priv_size <= ICSK_CA_PRIV_SIZE && ICSK_CA_PRIV_SIZE == 104,
	       "ours private state %zu bytes fits ICSK_CA_PRIV_SIZE (104)", impl_ours.priv_size);
	/* Before tcp_bbr's ACK aggregation (78dc70ebaa38) it was 88 bytes. */
	tap_ok(impl_ours.priv_size <= 88,
	       "ours private state %zu bytes fits the 88 of kernels before 5.1 (4.13 on)",
	       impl_ours.priv_size);
	t_modules_unload();
	tap_ok(shim_mem.live == 0 && shim_mem.bad_frees == 0 && shim_warnings == 0,
	       "parameter tests: no leak, no bad kfree, no WARN");
	return tap_done();
}
