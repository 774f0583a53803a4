/* The user part of a call chain from a sample's registers and stack copy (perf record
 * --call-graph dwarf), as perf's util/unwind-libdw.c unwinds it: libdwfl's frame unwinder
 * over the modules of the sample's address space, with the stack read from the copy and
 * any other address from the mapped file's bytes. A libdwfl session is kept per process
 * (its modules and their CFI are read once), not made per sample as perf does. */
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdwfl.h>

#include "symbols_state.h"
#include "unwind.h"
#include "pmutrace/symbols.h"

#define EM_X86_64_ 62
#define EM_AARCH64_ 183
#define PROCS 8 /* sessions kept; the least recently used one goes */

struct unw_proc {
	struct unwinder *u;
	int32_t pid;
	Dwfl *dwfl;
	bool attached;
	bool stale;          /* a mapping changed under a module: rebuild before next use */
	uint64_t last_use;
	/* the sample being unwound */
	const struct pmt_sample *smp;
	uint16_t machine;
	uint64_t sp;
	uint64_t *ips;
	unsigned n, max;
	bool read_failed;    /* a read found neither the stack copy nor a file there */
};

struct unwinder {
	struct pmt_symbols *s;
	struct unw_proc procs[PROCS];
	uint64_t tick;
	struct pmt_unwind_stats st;
};

static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
	.section_address = dwfl_offline_section_address,
};

/* perf's register numbers of the stack pointer and the pc, per architecture */
static bool sp_pc_regs(uint16_t machine, unsigned *sp, unsigned *pc)
{
	switch (machine) {
	case EM_X86_64_: *sp = 7; *pc = 8; return true;
	case EM_AARCH64_: *sp = 31; *pc = 32; return true;
	default: return false;
	}
}

/* The module of the file mapped at ip (perf's __report_module): reported once, at the
 * map's start less its pgoff; NULL when no file with code or unwind tables is mapped
 * there. A copy the recording carries without code (--bundle=symbols) has the tables: a
 * recording unwinds where its files are not. */
static Dwfl_Module *report_module(struct unw_proc *p, uint64_t ip)
{
	struct pmt_sym_loc loc;
	struct dso *d;
	Dwfl_Module *mod;
	uint64_t base;
	const char *path;

	if (pmt_symbols_resolve(p->u->s, p->pid, ip, p->smp->time, &loc) < 0 || !loc.dso_id)
		return NULL;
	d = (struct dso *)loc.dso_id;
	path = d->code_path ? d->code_path : d->frames_path;
	if (d->kernel || !path)
		return NULL;
	base = loc.map_start - loc.map_pgoff;
	mod = dwfl_addrmodule(p->dwfl, ip);
	if (mod) {
		Dwarf_Addr start;
		const char *name = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL,
						    NULL);

		if (start == base && name && !strcmp(name, d->short_name))
			return mod;
		/* another file is mapped there now (exec, dlclose/dlopen) */
		p->stale = true;
		return NULL;
	}
	mod = dwfl_report_elf(p->dwfl, d->short_name, path, -1, base, false);
	return mod && dwfl_addrmodule(p->dwfl, ip) == mod ? mod : NULL;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unw_proc *p = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = p;
	return (pid_t)p->smp->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unw_proc *p = arg;
	const struct pmt_sample *smp = p->smp;
	struct pmt_sym_loc loc;
	bool is64;
	uint64_t v;

	(void)dwfl;
	if (addr + 8 < addr)
		return false;
	if (addr >= p->sp && addr + 8 <= p->sp + smp->stack_user_size) {
		memcpy(&v, smp->stack_user + (addr - p->sp), 8);
		*result = smp->callchain_swap ? __builtin_bswap64(v) : v;
		return true;
	}
	/* perf's access_dso_mem: what the mapped file holds there */
	if (pmt_symbols_resolve(p->u->s, p->pid, addr, smp->time, &loc) < 0 ||
	    pmt_symbols_code_at(p->u->s, &loc, (uint8_t *)&v, 8, &is64) != 8) {
		p->read_failed = true;
		return false;
	}
	*result = smp->callchain_swap ? __builtin_bswap64(v) : v;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unw_proc *p = arg;
	const struct pmt_sample *smp = p->smp;
	Dwarf_Word regs[32];

	if (p->machine == EM_X86_64_) {
		/* DWARF's order rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip, from perf's
		 * PERF_REG_X86_* numbers (r8..r15 at 16..23) */
		static const uint8_t perf_reg[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19,
						      20, 21, 22, 23, 8 };
		for (unsigned i = 0; i < 17; i++)
			if (!pmt_sample_reg(smp, perf_reg[i], &regs[i]))
				return false;
		return dwfl_thread_state_registers(thread, 0, 17, regs);
	}
	/* arm64: x0..x30 and sp are DWARF 0..31 and perf's 0..31; the pc is perf's 32 */
	for (unsigned i = 0; i < 32; i++)
		if (!pmt_sample_reg(smp, i, &regs[i]))
			return false;
	if (!dwfl_thread_state_registers(thread, 0, 32, regs) || !pmt_sample_reg(smp, 32, &regs[0]))
		return false;
	dwfl_thread_state_register_pc(thread, regs[0]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_callback(Dwfl_Frame *state, void *arg)
{
	struct unw_proc *p = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	/* the caller's module, before libdwfl looks for its CFI; a pc in no file with code
	 * ends the chain before it, as perf's entry() */
	if (!report_module(p, pc)) {
		p->read_failed = true;
		return DWARF_CB_ABORT;
	}
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* a return address is one past its call: perf names the call */
	if (!activation)
		pc--;
	p->ips[p->n++] = pc;
	return p->n == p->max ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static void proc_reset(struct unw_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = p->stale = false;
}

static struct unw_proc *proc_get(struct unwinder *u, int32_t pid)
{
	struct unw_proc *p = NULL, *old = &u->procs[0];

	for (unsigned i = 0; i < PROCS; i++) {
		if (u->procs[i].dwfl && u->procs[i].pid == pid) {
			p = &u->procs[i];
			break;
		}
		if (u->procs[i].last_use < old->last_use)
			old = &u->procs[i];
	}
	if (p && p->stale)
		proc_reset(p);
	if (!p) {
		p = old;
		proc_reset(p);
		p->pid = pid;
	}
	p->u = u;
	p->last_use = ++u->tick;
	if (!p->dwfl && !(p->dwfl = dwfl_begin(&offline_callbacks)))
		return NULL;
	return p;
}

int pmt_symbols_unwind(struct pmt_symbols *s, const struct pmt_sample *smp, uint64_t *ips,
		       unsigned max)
{
	struct unwinder *u;
	struct unw_proc *p;
	unsigned sp_reg, pc_reg;
	uint64_t pc;
	int machine, rc;

	if (!s || !smp || (!ips && max))
		return -PMT_EINVAL;
	/* perf unwinds only a sample with registers and a stack copy */
	if (!max || !smp->regs_user || !smp->stack_user || !smp->stack_user_size)
		return 0;
	if (!(u = s->unwind)) {
		if (!(u = calloc(1, sizeof(*u))))
			return -PMT_ENOMEM;
		u->s = s;
		s->unwind = u;
	}
	u->st.samples++;
	/* the registers the mask holds say the architecture: arm64's pc is perf's 32, past
	 * x86-64's last register (23); a 32-bit abi has no unwinder here */
	machine = (smp->regs_user_mask >> 32 & 1) ? EM_AARCH64_ : EM_X86_64_;
	if (smp->regs_user_abi != 2 || !sp_pc_regs((uint16_t)machine, &sp_reg, &pc_reg) ||
	    !pmt_sample_reg(smp, pc_reg, &pc))
		goto lost;
	if (!(p = proc_get(u, smp->pid)))
		return -PMT_ENOMEM;
	p->smp = smp;
	p->machine = (uint16_t)machine;
	p->ips = ips;
	p->n = 0;
	p->max = max;
	p->read_failed = false;
	if (!pmt_sample_reg(smp, sp_reg, &p->sp))
		goto lost;
	if (!report_module(p, pc)) {
		/* a stale session: once more from a new one */
		if (p->stale) {
			proc_reset(p);
			if (!(p->dwfl = dwfl_begin(&offline_callbacks)))
				return -PMT_ENOMEM;
		}
		if (!report_module(p, pc))
			goto lost;
	}
	if (!p->attached) {
		dwfl_report_end(p->dwfl, NULL, NULL);
		if (!dwfl_attach_state(p->dwfl, NULL, smp->pid, &thread_callbacks, p))
			goto lost;
		p->attached = true;
	}
	rc = dwfl_getthread_frames(p->dwfl, (pid_t)smp->tid, frame_callback, p);
	u->st.frames += p->n;
	/* libdwfl ends with 0 at the outermost frame, and also when a caller's return
	 * address could not be read: -1 (no CFI) or a failed read is an unwinding that
	 * stopped early, unless max frames were taken */
	if ((rc < 0 || p->read_failed) && p->n < max)
		u->st.truncated++;
	return (int)p->n;
lost:
	u->st.failed++;
	return 0;
}

void pmt_symbols_unwind_stats(const struct pmt_symbols *s, struct pmt_unwind_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (s && s->unwind)
		*st = s->unwind->st;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (unsigned i = 0; i < PROCS; i++)
		proc_reset(&u->procs[i]);
	free(u);
}
