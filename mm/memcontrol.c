// SPDX-License-Identifier: MIT
/*
 * Memory cgroups (mm/memcontrol.c): the memcg tree and its ids, the
 * per-node info that holds each lruvec and the cache it comes from, css
 * references, offline with the mainline "zombie" lifetime and the
 * RCU-deferred free, init and exit, the LRU size helpers and the layout
 * description.  Charging (page counters, the per-CPU stock, memory.max)
 * is in mm/memcg_charge.c, statistics (updates, the rstat flush and the
 * periodic flusher, readers, memory.stat) in mm/memcg_stats.c; what the
 * three share is declared in mm/memcontrol-internal.h.
 *
 * Locks, outermost first: a CPU's stock lock, memcg_tree_lock (the tree,
 * the id table), memcg_rstat_lock (every aggregate and pending array),
 * pn_cache.lock.  lru_lock is taken by callers around the LRU helpers and
 * nothing here nests inside it except stat updates, which take no lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/memcontrol.h>
#include <lrulab/trace.h>
#include <lrulab/mglru.h>
#include <lrulab/mm_inline.h>
#include <lrulab/rcupdate.h>
#include <lrulab/workqueue.h>

#include "memcontrol-internal.h"

#define MEM_CGROUP_ID_MAX 65535

struct mem_cgroup *root_mem_cgroup;

/* the tree and the id table; memcg_stats.c flushes a subtree under it */
pthread_mutex_t memcg_tree_lock = PTHREAD_MUTEX_INITIALIZER;

/* id -> memcg, published with release so RCU readers see it whole */
static struct mem_cgroup *memcg_ids[MEM_CGROUP_ID_MAX + 1];

/*
 * memcgs whose RCU-deferred free has not run yet.  Waiters sleep on a
 * condition variable rather than in rcu_barrier(), whose own bookkeeping
 * ThreadSanitizer reports as racy (liburcu is not instrumented), and the
 * mutex gives TSan the ordering between a free and what follows the wait.
 */
static int memcg_frees_pending;
static pthread_mutex_t memcg_frees_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t memcg_frees_done = PTHREAD_COND_INITIALIZER;

static void mem_cgroup_release(struct mem_cgroup *memcg);

void memcg_warn(const char *fmt, const char *name)
{
	fprintf(stderr, "WARNING: memcg: ");
	fprintf(stderr, fmt, name);
	fputc('\n', stderr);
}

static void *zalloc_aligned(size_t size)
{
	size_t bytes = (size + L1_CACHE_BYTES - 1) & ~(size_t)(L1_CACHE_BYTES - 1);
	void *p;

	if (posix_memalign(&p, L1_CACHE_BYTES, bytes))
		return NULL;
	memset(p, 0, bytes);
	return p;
}

/*
 * ---------------------------------------------------------------------
 * The mem_cgroup_per_node cache.
 *
 * Like a SLAB_HWCACHE_ALIGN kmem_cache: objects only 64-byte aligned,
 * packed back to back from the start of page-aligned slabs at a stride
 * of their size rounded up to 64.  The 128-byte offset of an object is
 * then a matter of its slot, which is what the s3 layout experiment is
 * about; a plain aligned allocator would hide it.  The slab header sits
 * in the slab's tail, which the objects never reach, and slabs are
 * aligned to their size so that an object finds its slab by masking.
 * ---------------------------------------------------------------------
 */
#define PN_SLAB_SIZE (4 * PAGE_SIZE)

struct pn_slab {
	struct list_head list;	/* pn_cache.partial or pn_cache.full */
	void *freelist;
	unsigned int inuse;
};

static struct {
	pthread_mutex_t lock;
	size_t stride;
	unsigned int objs_per_slab;
	struct list_head partial;
	struct list_head full;
} pn_cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct pn_slab *pn_slab_of(void *obj)
{
	char *base = (char *)((uintptr_t)obj & ~(uintptr_t)(PN_SLAB_SIZE - 1));

	return (struct pn_slab *)(base + PN_SLAB_SIZE - sizeof(struct pn_slab));
}

static void pn_cache_init(void)
{
	pn_cache.stride = (sizeof(struct mem_cgroup_per_node) + L1_CACHE_BYTES - 1) &
			  ~(size_t)(L1_CACHE_BYTES - 1);
	pn_cache.objs_per_slab = (PN_SLAB_SIZE - sizeof(struct pn_slab)) / pn_cache.stride;
	INIT_LIST_HEAD(&pn_cache.partial);
	INIT_LIST_HEAD(&pn_cache.full);
}

static struct pn_slab *pn_slab_new(void)
{
	struct pn_slab *slab;
	char *base;
	unsigned int i;

	base = aligned_alloc(PN_SLAB_SIZE, PN_SLAB_SIZE);
	if (!base)
		return NULL;
	slab = pn_slab_of(base);
	slab->inuse = 0;
	/* in address order, so a fresh slab hands out slot 0, 1, 2, ... */
	slab->freelist = NULL;
	for (i = pn_cache.objs_per_slab; i-- > 0;) {
		void *obj = base + (size_t)i * pn_cache.stride;

		*(void **)obj = slab->freelist;
		slab->freelist = obj;
	}
	list_add(&slab->list, &pn_cache.partial);
	return slab;
}

static struct mem_cgroup_per_node *pn_cache_alloc(void)
{
	struct pn_slab *slab;
	void *obj = NULL;

	mutex_lock_sleep(&pn_cache.lock);
	if (list_empty(&pn_cache.partial) && !pn_slab_new())
		goto out;
	slab = list_first_entry(&pn_cache.partial, struct pn_slab, list);
	obj = slab->freelist;
	slab->freelist = *(void **)obj;
	if (++slab->inuse == pn_cache.objs_per_slab)
		list_move(&slab->list, &pn_cache.full);
	memset(obj, 0, pn_cache.stride);
out:
	pthread_mutex_unlock(&pn_cache.lock);
	return obj;
}

static void pn_cache_free(struct mem_cgroup_per_node *pn)
{
	struct pn_slab *slab = pn_slab_of(pn);
	bool was_full;

	mutex_lock_sleep(&pn_cache.lock);
	was_full = slab->inuse == pn_cache.objs_per_slab;
	*(void **)pn = slab->freelist;
	slab->freelist = pn;
	slab->inuse--;
	if (was_full)
		list_move(&slab->list, &pn_cache.partial);
	/* keep one empty slab around, as SLUB keeps a few partial ones */
	if (!slab->inuse && pn_cache.partial.next->next != &pn_cache.partial) {
		list_del(&slab->list);
		free((char *)((uintptr_t)pn & ~(uintptr_t)(PN_SLAB_SIZE - 1)));
	}
	pthread_mutex_unlock(&pn_cache.lock);
}

static void pn_cache_destroy(void)
{
	struct pn_slab *slab, *next;
	struct list_head *lists[] = { &pn_cache.partial, &pn_cache.full };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		list_for_each_entry_safe(slab, next, lists[i], list) {
			list_del(&slab->list);
			free((char *)((uintptr_t)slab & ~(uintptr_t)(PN_SLAB_SIZE - 1)));
		}
	}
}

unsigned long mem_cgroup_pn_offset128(struct mem_cgroup *memcg, int nid)
{
	return (uintptr_t)memcg->nodeinfo[nid] & 127;
}

/*
 * ---------------------------------------------------------------------
 * css references
 *
 * The kernel's css refcount is a percpu_ref: per-CPU counting while the
 * cgroup is online, atomic after it is killed.  A plain atomic here would
 * put a line every charge and uncharge writes into a benchmark of many
 * threads in one memcg, which the kernel does not have.  While online,
 * model CPUs count in their own slot inside an RCU read section; the
 * atomic count holds a bias then, so that the gets and puts of threads
 * that are not model CPUs, which always go to the atomic count, cannot
 * reach zero.  Offline flips css_ref_atomic, waits a grace period so that
 * no CPU is still inside a slot update, folds the slots in and drops the
 * bias.
 *
 * Slot stores are releases and the fold's loads acquires: on x86 the
 * same instructions as relaxed ones, but they let ThreadSanitizer see
 * that every CPU's last use of the memcg happens before its free, an
 * ordering the grace period provides and TSan cannot see in liburcu.
 * ---------------------------------------------------------------------
 */
#define CSS_REF_BIAS (LONG_MAX / 4)

static bool css_ref_percpu_add(struct mem_cgroup *memcg, long nr)
{
	int cpu = smp_processor_id();
	bool done = false;

	if (cpu < 0)
		return false;
	rcu_read_lock();
	if (!READ_ONCE(memcg->css_ref_atomic)) {
		long *slot = per_cpu_ptr(memcg->css_ref_percpu, cpu);

		smp_store_release(slot, READ_ONCE(*slot) + nr);
		done = true;
	}
	rcu_read_unlock();
	return done;
}

static void css_get_many(struct mem_cgroup *memcg, long nr)
{
	if (!memcg || memcg->css_no_ref)
		return;
	if (!css_ref_percpu_add(memcg, nr))
		atomic_long_add(nr, &memcg->refcnt);
}

void css_put_many(struct mem_cgroup *memcg, long nr)
{
	if (!memcg || memcg->css_no_ref)
		return;
	if (css_ref_percpu_add(memcg, -nr))
		return;
	if (atomic_long_sub_return(nr, &memcg->refcnt) == 0)
		mem_cgroup_release(memcg);
}

void css_get(struct mem_cgroup *memcg)
{
	css_get_many(memcg, 1);
}

void css_put(struct mem_cgroup *memcg)
{
	css_put_many(memcg, 1);
}

bool css_tryget(struct mem_cgroup *memcg)
{
	long old;

	if (!memcg)
		return false;
	if (memcg->css_no_ref || css_ref_percpu_add(memcg, 1))
		return true;
	old = atomic_long_read(&memcg->refcnt);
	do {
		if (old == 0)
			return false;
	} while (!atomic_long_try_cmpxchg(&memcg->refcnt, &old, old + 1));
	return true;
}

/* percpu_ref_kill(), synchronously.  The creator's reference stays. */
static void css_ref_kill(struct mem_cgroup *memcg)
{
	long sum = 0;
	int cpu;

	WRITE_ONCE(memcg->css_ref_atomic, true);
	synchronize_rcu();
	for_each_possible_cpu(cpu)
		sum += smp_load_acquire(per_cpu_ptr(memcg->css_ref_percpu, cpu));
	/* fully ordered: the final put must see everything done before */
	atomic_long_add_return(sum - CSS_REF_BIAS, &memcg->refcnt);
}

/*
 * ---------------------------------------------------------------------
 * The tree and the lifetime of a memcg
 * ---------------------------------------------------------------------
 */
/*
 * What every lru_lock hold writes besides the lock word, for consumers
 * that cost line transfers: the lruvec's list heads and the memcg's
 * lru_zone_size[], and the folio next to the ones a section links or
 * unlinks, written last by whoever held the lock before; that one has
 * no address of its own, so it gets an id no address can have.
 */
static int lru_lock_lines(const spinlock_t *lock, uintptr_t *lines, int max)
{
	const struct lruvec *lruvec = container_of(lock, struct lruvec, lru_lock);
	const struct mem_cgroup_per_node *pn = lruvec_pn((struct lruvec *)lruvec);
	uintptr_t cand[] = {
		(uintptr_t)&lruvec->lists[0] >> 6,
		(uintptr_t)&lruvec->lists[NR_LRU_LISTS - 1] >> 6,
		(uintptr_t)&pn->lru_zone_size[0][0] >> 6,
		((uintptr_t)lock >> 6) | (1ULL << 60),
	};
	int n = 0;

	while (n < max && n < (int)ARRAY_SIZE(cand)) {
		lines[n] = cand[n];
		n++;
	}
	return n;
}

static void memcg_lruvec_init(struct lruvec *lruvec, struct pglist_data *pgdat)
{
	enum lru_list lru;

	memset(lruvec, 0, sizeof(*lruvec));
	for_each_lru(lru)
		INIT_LIST_HEAD(&lruvec->lists[lru]);
	spin_lock_init(&lruvec->lru_lock);
	lruvec->pgdat = pgdat;
	lru_gen_init_lruvec(lruvec);
}

static void free_mem_cgroup_per_node_info(struct mem_cgroup_per_node *pn)
{
	if (!pn)
		return;
	free_percpu(pn->lruvec_stats_percpu);
	free(pn->lruvec_stats);
	pn_cache_free(pn);
}

static int alloc_mem_cgroup_per_node_info(struct mem_cgroup *memcg, int nid)
{
	struct mem_cgroup_per_node *pn = pn_cache_alloc();

	if (!pn)
		return -ENOMEM;
	pn->memcg = memcg;
	pn->lruvec_stats_percpu = alloc_percpu(struct lruvec_stats_percpu);
	pn->lruvec_stats = zalloc_aligned(sizeof(struct lruvec_stats));
	INIT_LIST_HEAD(&pn->objcg_list);
	memcg_lruvec_init(&pn->lruvec, NODE_DATA(nid));
	memcg->nodeinfo[nid] = pn;
	if (!pn->lruvec_stats_percpu || !pn->lruvec_stats)
		return -ENOMEM;
	return 0;
}

static void mem_cgroup_free(struct mem_cgroup *memcg)
{
	int nid;

	lru_gen_exit_memcg(memcg);
	for_each_node(nid)
		free_mem_cgroup_per_node_info(memcg->nodeinfo[nid]);
	free_percpu(memcg->vmstats_percpu);
	free(memcg->vmstats);
	free_percpu(memcg->css_ref_percpu);
	free(memcg);
}

static struct mem_cgroup *mem_cgroup_alloc(struct mem_cgroup *parent, const char *name)
{
	struct mem_cgroup *memcg;
	int cpu, nid;

	memcg = zalloc_aligned(sizeof(*memcg) +
			       (size_t)nr_node_ids * sizeof(memcg->nodeinfo[0]));
	if (!memcg)
		return NULL;
	strcpy(memcg->name, name);
	memcg->parent = parent;
	INIT_LIST_HEAD(&memcg->children);
	INIT_LIST_HEAD(&memcg->sibling);
	lru_gen_init_memcg(memcg);
	/* the creator's reference, on top of the per-CPU mode bias */
	atomic_long_set(&memcg->refcnt, CSS_REF_BIAS + 1);
	page_counter_init(&memcg->memory, parent ? &parent->memory : NULL);

	memcg->css_ref_percpu = alloc_percpu(long);
	memcg->vmstats = zalloc_aligned(sizeof(struct memcg_vmstats));
	memcg->vmstats_percpu = alloc_percpu(struct memcg_vmstats_percpu);
	if (!memcg->css_ref_percpu || !memcg->vmstats || !memcg->vmstats_percpu)
		goto fail;
	for_each_possible_cpu(cpu) {
		struct memcg_vmstats_percpu *statc = per_cpu_ptr(memcg->vmstats_percpu, cpu);

		statc->vmstats = memcg->vmstats;
		statc->parent_pcpu = parent ? per_cpu_ptr(parent->vmstats_percpu, cpu) : NULL;
	}
	for_each_node(nid)
		if (alloc_mem_cgroup_per_node_info(memcg, nid))
			goto fail;
	return memcg;

fail:
	mem_cgroup_free(memcg);
	return NULL;
}

/* the last cgroup id handed out (kernfs ids only grow); tree lock held */
static u64 last_cgroup_id;

/*
 * Lowest free private id, as the kernel's xa_alloc, and the next cgroup
 * id, which is never reused; tree lock held.
 */
static int mem_cgroup_alloc_id(struct mem_cgroup *memcg)
{
	int id;

	for (id = 1; id <= MEM_CGROUP_ID_MAX; id++) {
		if (!memcg_ids[id]) {
			memcg->id = (unsigned short)id;
			memcg->cgroup_id = ++last_cgroup_id;
			return id;
		}
	}
	return -ENOSPC;
}

static bool memcg_name_valid(const char *name)
{
	size_t len;

	if (!name)
		return false;
	len = strlen(name);
	return len > 0 && len < sizeof(((struct mem_cgroup *)0)->name) &&
		!strchr(name, '/');
}

struct mem_cgroup *mem_cgroup_create(struct mem_cgroup *parent, const char *name)
{
	struct mem_cgroup *memcg, *sib;
	int err;

	if (!parent)
		parent = root_mem_cgroup;
	if (!parent || !memcg_name_valid(name)) {
		errno = EINVAL;
		return NULL;
	}
	memcg = mem_cgroup_alloc(parent, name);
	if (!memcg) {
		errno = ENOMEM;
		return NULL;
	}

	mutex_lock_sleep(&memcg_tree_lock);
	err = ENOENT;
	if (!READ_ONCE(parent->online))
		goto fail;
	err = EEXIST;
	for_each_mem_cgroup_child(sib, parent)
		if (READ_ONCE(sib->online) && !strcmp(sib->name, name))
			goto fail;
	err = ENOSPC;
	if (mem_cgroup_alloc_id(memcg) < 0)
		goto fail;
	/* a child pins its parent: parent_pcpu and the page counter chain */
	css_get(parent);
	list_add_tail(&memcg->sibling, &parent->children);
	WRITE_ONCE(memcg->online, true);
	smp_store_release(&memcg_ids[memcg->id], memcg);
	pthread_mutex_unlock(&memcg_tree_lock);
	lru_gen_online_memcg(memcg);
	return memcg;

fail:
	pthread_mutex_unlock(&memcg_tree_lock);
	mem_cgroup_free(memcg);
	errno = err;
	return NULL;
}

struct mem_cgroup *mem_cgroup_from_id(unsigned short id)
{
	if (!id)
		return NULL;
	return smp_load_acquire(&memcg_ids[id]);
}

/*
 * The kernel looks the cgroup up by its kernfs id; the model scans the
 * online memcgs, which all hold a private id.
 */
struct mem_cgroup *mem_cgroup_get_from_id(u64 id)
{
	struct mem_cgroup *memcg = NULL;
	int i;

	if (!id)
		return NULL;
	rcu_read_lock();
	for (i = 1; i <= MEM_CGROUP_ID_MAX; i++) {
		struct mem_cgroup *m = smp_load_acquire(&memcg_ids[i]);

		if (m && m->cgroup_id == id) {
			if (mem_cgroup_online(m) && css_tryget(m))
				memcg = m;
			break;
		}
	}
	rcu_read_unlock();
	return memcg;
}

static void memcg_reparent_lru_folios(struct mem_cgroup *memcg);
static void reparent_state_local(struct mem_cgroup *memcg);

void mem_cgroup_offline(struct mem_cgroup *memcg)
{
	struct mem_cgroup *child;

	if (!memcg)
		return;
	if (mem_cgroup_is_root(memcg)) {
		memcg_warn("the root memcg cannot go offline", "");
		return;
	}
	mutex_lock_sleep(&memcg_tree_lock);
	if (!READ_ONCE(memcg->online)) {
		pthread_mutex_unlock(&memcg_tree_lock);
		return;
	}
	for_each_mem_cgroup_child(child, memcg) {
		if (READ_ONCE(child->online)) {
			pthread_mutex_unlock(&memcg_tree_lock);
			memcg_warn("%s has online children: not taken offline", memcg->name);
			return;
		}
	}
	WRITE_ONCE(memcg->online, false);
	pthread_mutex_unlock(&memcg_tree_lock);
	lru_gen_offline_memcg(memcg);

	/*
	 * LRU folios go to the parent's lruvecs (v7.2 reparents them, both
	 * LRUs), their stats with them; their charges stay, and each still
	 * holds a reference, so the memcg lives on as a zombie until the
	 * last of them is freed (the kernel's objcg lets it go sooner).
	 */
	memcg_reparent_lru_folios(memcg);
	drain_all_stock_memcg(memcg);
	/* stat updaters that still saw this memcg have finished */
	synchronize_rcu();
	__mem_cgroup_flush_stats(memcg, true);
	reparent_state_local(memcg);
	__mem_cgroup_flush_stats(memcg, true);
	css_ref_kill(memcg);
	css_put(memcg);
}

#define SITE_REPARENT LOCK_SITE_AT("lru_lock", "mem_cgroup_css_offline", "memcg_reparent_objcgs")

static void reparent_locks(struct mem_cgroup *memcg, struct mem_cgroup *parent)
{
	int nid;

	for_each_node(nid) {
		spin_lock_at(&mem_cgroup_lruvec(memcg, NODE_DATA(nid))->lru_lock, SITE_REPARENT);
		spin_lock_at(&mem_cgroup_lruvec(parent, NODE_DATA(nid))->lru_lock, SITE_REPARENT);
	}
}

static void reparent_unlocks(struct mem_cgroup *memcg, struct mem_cgroup *parent)
{
	int nid;

	for (nid = nr_node_ids - 1; nid >= 0; nid--) {
		spin_unlock(&mem_cgroup_lruvec(parent, NODE_DATA(nid))->lru_lock);
		spin_unlock(&mem_cgroup_lruvec(memcg, NODE_DATA(nid))->lru_lock);
	}
}

/*
 * The classic lists join the parent's at their tails, and every list's
 * sizes move (the unevictable one is counted, not linked, under both
 * LRUs): lru_zone_size and the lruvec stats; the node's and the zone's
 * net to nothing.
 */
static void lru_reparent_memcg(struct lruvec *child, struct lruvec *parent)
{
	enum lru_list lru;
	int zid;

	for_each_lru(lru) {
		if (lru != LRU_UNEVICTABLE)
			list_splice_tail_init(&child->lists[lru], &parent->lists[lru]);
		for (zid = 0; zid < MAX_NR_ZONES; zid++) {
			long nr = (long)READ_ONCE(lruvec_pn(child)->lru_zone_size[zid][lru]);

			if (!nr)
				continue;
			update_lru_size(child, lru, zid, -nr);
			update_lru_size(parent, lru, zid, nr);
		}
	}
}

/*
 * memcg_reparent_objcgs()' LRU part: under every node's lru_lock of the
 * child and the parent, the lists move and the child is marked, after
 * which folio_memcg() names the parent for every folio charged to the
 * child, on a list, isolated or in a per-CPU batch, so that whoever
 * looked the child's lruvec up before checks again under its lock.
 * MGLRU needs all of the parent's generations first, made outside the
 * locks and checked under them.
 */
static void memcg_reparent_lru_folios(struct mem_cgroup *memcg)
{
	struct mem_cgroup *parent = parent_mem_cgroup(memcg);
	int nid;

retry:
	if (lru_gen_enabled())
		for_each_node(nid)
			max_lru_gen_memcg(parent, nid);
	reparent_locks(memcg, parent);
	if (lru_gen_enabled()) {
		for_each_node(nid) {
			if (!recheck_lru_gen_max_memcg(parent, nid)) {
				reparent_unlocks(memcg, parent);
				cond_resched();
				goto retry;
			}
		}
	}
	for_each_node(nid) {
		if (lru_gen_enabled())
			lru_gen_reparent_memcg(memcg, parent, nid);
		lru_reparent_memcg(mem_cgroup_lruvec(memcg, NODE_DATA(nid)),
				   mem_cgroup_lruvec(parent, NODE_DATA(nid)));
	}
	__atomic_store_n(&memcg->reparented, true, __ATOMIC_RELEASE);
	reparent_unlocks(memcg, parent);
}

/* What the folios carry, besides their lists' sizes (moved with them). */
static const enum node_stat_item memcg_reparent_items[] = {
	NR_ANON_MAPPED, NR_FILE_MAPPED, NR_FILE_PAGES, NR_FILE_DIRTY,
	NR_WRITEBACK, NR_SHMEM, NR_ANON_THPS, NR_SWAPCACHE,
};

/*
 * reparent_state_local(): the child's own share of what its folios
 * carry becomes the parent's, flushed first, so that the updates now
 * made for them in the parent leave neither local figure wrong; the
 * hierarchical ones do not change.
 */
static void reparent_state_local(struct mem_cgroup *memcg)
{
	struct mem_cgroup *parent = parent_mem_cgroup(memcg);
	unsigned int i;
	int nid;

	for_each_node(nid) {
		struct lruvec *child = mem_cgroup_lruvec(memcg, NODE_DATA(nid));
		struct lruvec *lruvec = mem_cgroup_lruvec(parent, NODE_DATA(nid));

		for (i = 0; i < ARRAY_SIZE(memcg_reparent_items); i++) {
			long nr = (long)lruvec_page_state_local(child, memcg_reparent_items[i]);

			if (!nr)
				continue;
			__mod_memcg_lruvec_state(child, memcg_reparent_items[i], (int)-nr);
			__mod_memcg_lruvec_state(lruvec, memcg_reparent_items[i], (int)nr);
		}
	}
}

static void mem_cgroup_free_rcu(struct rcu_head *head)
{
	struct mem_cgroup *memcg = container_of(head, struct mem_cgroup, rcu);
	struct mem_cgroup *parent = parent_mem_cgroup(memcg);

	/* pairs with the store in mem_cgroup_release(), for TSan */
	(void)smp_load_acquire(&memcg->released);
	/*
	 * Deltas that arrived after the last flush (RCU readers may update
	 * stats of a memcg they found under rcu_read_lock()) go to the
	 * parent's pending arrays, so hierarchical totals stay whole.
	 */
	memcg_flush_dying(memcg);
	mem_cgroup_free(memcg);
	/* a parent freed in our wake is counted before we stop counting */
	css_put(parent);
	mutex_lock_sleep(&memcg_frees_lock);
	if (!--memcg_frees_pending)
		pthread_cond_broadcast(&memcg_frees_done);
	pthread_mutex_unlock(&memcg_frees_lock);
}

void mem_cgroup_wait_frees(void)
{
	mutex_lock_sleep(&memcg_frees_lock);
	cpu_sleep_begin();
	while (memcg_frees_pending)
		pthread_cond_wait(&memcg_frees_done, &memcg_frees_lock);
	pthread_mutex_unlock(&memcg_frees_lock);
	cpu_sleep_end();
}

/* The refcount reached 0: nothing charges, caches or walks it any more. */
static void mem_cgroup_release(struct mem_cgroup *memcg)
{
	lru_gen_release_memcg(memcg);
	mutex_lock_sleep(&memcg_tree_lock);
	list_del_init(&memcg->sibling);
	smp_store_release(&memcg_ids[memcg->id], (struct mem_cgroup *)NULL);
	pthread_mutex_unlock(&memcg_tree_lock);
	smp_store_release(&memcg->released, true);
	mutex_lock_sleep(&memcg_frees_lock);
	memcg_frees_pending++;
	pthread_mutex_unlock(&memcg_frees_lock);
	call_rcu(&memcg->rcu, mem_cgroup_free_rcu);
}

/* Next in pre-order after @pos within @root's subtree; tree lock held. */
static struct mem_cgroup *memcg_next_pre(struct mem_cgroup *pos, struct mem_cgroup *root)
{
	if (!list_empty(&pos->children))
		return list_first_entry(&pos->children, struct mem_cgroup, sibling);
	while (pos != root) {
		struct mem_cgroup *parent = parent_mem_cgroup(pos);

		if (pos->sibling.next != &parent->children)
			return list_entry(pos->sibling.next, struct mem_cgroup, sibling);
		pos = parent;
	}
	return NULL;
}

struct mem_cgroup *mem_cgroup_iter(struct mem_cgroup *root, struct mem_cgroup *prev)
{
	struct mem_cgroup *pos = prev;

	if (!root)
		root = root_mem_cgroup;
	mutex_lock_sleep(&memcg_tree_lock);
	for (;;) {
		pos = pos ? memcg_next_pre(pos, root) : root;
		/* one whose count hit 0 waits for our lock to be unlinked */
		if (!pos || pos == root || css_tryget(pos))
			break;
	}
	pthread_mutex_unlock(&memcg_tree_lock);
	/* outside the lock: this put may release prev */
	if (prev && prev != root)
		css_put(prev);
	return pos;
}

void mem_cgroup_iter_break(struct mem_cgroup *root, struct mem_cgroup *prev)
{
	if (!root)
		root = root_mem_cgroup;
	if (prev && prev != root)
		css_put(prev);
}

int mem_cgroup_init(void)
{
	struct mem_cgroup *root;
	int nid;

	/* what every lruvec's lru_lock hold writes, for consumers of the lock events */
	lock_class_set_lines("lru_lock", lru_lock_lines);
	if (root_mem_cgroup)
		return -EBUSY;
	if (nr_cpu_ids < 1 || nr_node_ids < 1)
		return -EINVAL;
	for_each_node(nid)
		if (!NODE_DATA(nid))
			return -EINVAL;

	pn_cache_init();
	if (memcg_stock_init())
		return -ENOMEM;

	root = mem_cgroup_alloc(NULL, "/");
	if (!root) {
		memcg_stock_free();
		pn_cache_destroy();
		return -ENOMEM;
	}
	/* the root is never freed by its refcount (CSS_NO_REF) */
	root->css_no_ref = true;
	memset(memcg_ids, 0, sizeof(memcg_ids));
	last_cgroup_id = 0;
	mem_cgroup_alloc_id(root);
	WRITE_ONCE(root->online, true);
	smp_store_release(&memcg_ids[root->id], root);
	lru_gen_online_memcg(root);
	WRITE_ONCE(flush_last_time, 0ULL);
	root_mem_cgroup = root;
	return 0;
}

static void mem_cgroup_free_tree(struct mem_cgroup *memcg)
{
	struct list_head *link = memcg->children.next;

	while (link != &memcg->children) {
		struct list_head *next = link->next;

		mem_cgroup_free_tree(list_entry(link, struct mem_cgroup, sibling));
		link = next;
	}
	/* the nodes outlive the tree (and a new one may be built on them) */
	lru_gen_release_memcg(memcg);
	mem_cgroup_free(memcg);
}

/*
 * Quiescent teardown.  Folios still charged keep dangling memcg_data
 * pointers: free them first, or do not look at them afterwards.
 */
void mem_cgroup_exit(void)
{
	if (!root_mem_cgroup)
		return;
	/* lrulab_exit() stops it first; a bare mem_cgroup_init() user may not */
	mem_cgroup_flusher_stop();
	drain_all_stock();
	mem_cgroup_wait_frees();
	mem_cgroup_free_tree(root_mem_cgroup);
	root_mem_cgroup = NULL;
	memset(memcg_ids, 0, sizeof(memcg_ids));
	memcg_stock_free();
	pn_cache_destroy();
}

/*
 * ---------------------------------------------------------------------
 * LRU helpers
 * ---------------------------------------------------------------------
 */

/*
 * The exact, non-hierarchical list size.  Subtract before the check and
 * add after it, so that a removal that would go negative is caught
 * whatever the order of the caller's updates.
 */
void mem_cgroup_update_lru_size(struct lruvec *lruvec, enum lru_list lru,
				int zid, int nr_pages)
{
	struct mem_cgroup_per_node *pn = lruvec_pn(lruvec);
	unsigned long *lru_size = &pn->lru_zone_size[zid][lru];
	long size;

	if (nr_pages < 0)
		WRITE_ONCE(*lru_size, READ_ONCE(*lru_size) + nr_pages);
	size = (long)READ_ONCE(*lru_size);
	if (size < 0) {
		fprintf(stderr,
			"WARNING: mem_cgroup_update_lru_size(%p, %d, %d): lru_size %ld\n",
			(void *)lruvec, lru, nr_pages, size);
		WRITE_ONCE(*lru_size, 0UL);
	}
	if (nr_pages > 0)
		WRITE_ONCE(*lru_size, READ_ONCE(*lru_size) + nr_pages);
}

unsigned long lruvec_lru_size(struct lruvec *lruvec, enum lru_list lru, int zone_idx)
{
	struct mem_cgroup_per_node *pn = lruvec_pn(lruvec);
	unsigned long size = 0;
	int zid;

	for (zid = 0; zid <= zone_idx && zid < MAX_NR_ZONES; zid++)
		size += READ_ONCE(pn->lru_zone_size[zid][lru]);
	return size;
}

struct lruvec *parent_lruvec(struct lruvec *lruvec)
{
	struct mem_cgroup *parent = parent_mem_cgroup(lruvec_memcg(lruvec));

	if (!parent)
		return NULL;
	return mem_cgroup_lruvec(parent, lruvec_pgdat(lruvec));
}

/*
 * The folio's lruvec, locked.  Reparenting (memcg offline) moves a
 * folio to the parent's lruvec under both locks, so the lruvec looked up
 * before the lock was taken is checked again under it, as the kernel's
 * folio_lruvec_lock() does since LRU folios are reparented.
 */
struct lruvec *__folio_lruvec_lock(struct folio *folio, struct lock_site *site)
{
	struct lruvec *lruvec;

	for (;;) {
		lruvec = folio_lruvec(folio);
		spin_lock_at(&lruvec->lru_lock, site);
		if (likely(folio_lruvec(folio) == lruvec))
			return lruvec;
		spin_unlock(&lruvec->lru_lock);
	}
}

struct lruvec *__folio_lruvec_relock(struct folio *folio, struct lruvec *locked,
				     struct lock_site *site)
{
	struct lruvec *lruvec = folio_lruvec(folio);

	if (lruvec == locked)
		return locked;
	if (locked)
		lruvec_unlock(locked);
	return __folio_lruvec_lock(folio, site);
}

void lruvec_unlock(struct lruvec *lruvec)
{
	spin_unlock(&lruvec->lru_lock);
}

/*
 * ---------------------------------------------------------------------
 * Layout description
 *
 * Written out once, by hand, with offsetof() for the numbers; the tests
 * check that it leaves no byte of either struct unexplained.  The uses
 * are those of the model's paths, the fault/free path's and reclaim's,
 * see enum memcg_layout_use.
 * ---------------------------------------------------------------------
 */
#define LRUVEC_FIELD(f, use)						\
	{ "", #f, NULL, offsetof(struct lruvec, f),			\
	  sizeof(((struct lruvec *)0)->f), (use) }
#define PN_FIELD(f, group, use)						\
	{ "", #f, #group, offsetof(struct mem_cgroup_per_node, f),	\
	  sizeof(((struct mem_cgroup_per_node *)0)->f), (use) }

const struct memcg_layout_field lruvec_layout[] = {
	LRUVEC_FIELD(lists, LAYOUT_LRU_LOCK_WRITE),
	LRUVEC_FIELD(lru_lock, LAYOUT_LRU_LOCK_WRITE),
	LRUVEC_FIELD(cost_lock, 0),
	/* set and cleared by a batch that holds lru_lock (lru-stat-batch) */
	LRUVEC_FIELD(lru_size_batch, LAYOUT_LRU_LOCK_WRITE),
	/* lru_note_cost_unlock_irq() adds to them under lru_lock */
	LRUVEC_FIELD(anon_cost, LAYOUT_LRU_LOCK_WRITE),
	LRUVEC_FIELD(file_cost, LAYOUT_LRU_LOCK_WRITE),
	/* vmstat-scan-cost: the reclaim side's, under cost_lock */
	LRUVEC_FIELD(cost, 0),
	/*
	 * Reclaim adds to it under lru_lock when it puts activated folios
	 * back (move_folios_to_lru), activations on access without it.
	 */
	LRUVEC_FIELD(nonresident_age, LAYOUT_LRU_LOCK_WRITE),
	LRUVEC_FIELD(refaults, 0),
	LRUVEC_FIELD(flags, 0),
	/*
	 * The multi-gen LRU's: untouched with the classic LRU, the default
	 * (with --lru-gen its lists and sizes are written under lru_lock).
	 */
	LRUVEC_FIELD(lrugen, 0),
	LRUVEC_FIELD(mm_state, 0),
	LRUVEC_FIELD(pgdat, LAYOUT_STAT_READ_LRUVEC),
};
const size_t lruvec_layout_nr = ARRAY_SIZE(lruvec_layout);

static const struct memcg_layout_field pn_layout[] = {
	PN_FIELD(memcg, memcg_pn_read_mostly, LAYOUT_STAT_READ_LRUVEC),
	PN_FIELD(lruvec_stats_percpu, memcg_pn_read_mostly, LAYOUT_STAT_READ),
	PN_FIELD(lruvec_stats, memcg_pn_read_mostly, 0),
	PN_FIELD(shrinker_info, memcg_pn_read_mostly, 0),
	PN_FIELD(objcg, memcg_pn_read_mostly, 0),
	/* stands for lruvec_layout[], placed at its offset */
	PN_FIELD(lruvec, memcg_pn_lruvec, 0),
	PN_FIELD(lru_zone_size, memcg_pn_write_hot, LAYOUT_LRU_LOCK_WRITE),
	PN_FIELD(_pad_odd_, memcg_pn_write_hot, 0),
	/* reclaim's, once per round of the memcg tree */
	PN_FIELD(iter, memcg_pn_write_hot, 0),
	PN_FIELD(orig_objcg, memcg_pn_cold, 0),
	PN_FIELD(objcg_list, memcg_pn_cold, 0),
};

static int layout_field_cmp(const void *a, const void *b)
{
	const struct memcg_layout_field *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	/* a zero-size field first, as it ends where the other starts */
	return (x->size > y->size) - (x->size < y->size);
}

size_t mem_cgroup_per_node_layout(struct memcg_layout_field *buf)
{
	size_t i, j, nr = 0;

	_Static_assert(ARRAY_SIZE(pn_layout) - 1 + ARRAY_SIZE(lruvec_layout) <=
		       MEMCG_PN_LAYOUT_MAX, "MEMCG_PN_LAYOUT_MAX too small");
	for (i = 0; i < ARRAY_SIZE(pn_layout); i++) {
		if (strcmp(pn_layout[i].name, "lruvec")) {
			buf[nr++] = pn_layout[i];
			continue;
		}
		for (j = 0; j < ARRAY_SIZE(lruvec_layout); j++) {
			buf[nr] = lruvec_layout[j];
			buf[nr].prefix = "lruvec.";
			buf[nr].group = pn_layout[i].group;
			buf[nr].offset += pn_layout[i].offset;
			nr++;
		}
	}
	qsort(buf, nr, sizeof(*buf), layout_field_cmp);
	return nr;
}

unsigned int memcg_layout_line_use(const struct memcg_layout_field *fields,
				   size_t nr, size_t line)
{
	size_t start = line * L1_CACHE_BYTES, end = start + L1_CACHE_BYTES;
	unsigned int use = 0;
	size_t i;

	for (i = 0; i < nr; i++)
		if (fields[i].size && fields[i].offset < end &&
		    fields[i].offset + fields[i].size > start)
			use |= fields[i].use;
	return use;
}
