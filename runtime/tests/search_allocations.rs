//! A search allocates its answer and nothing else: the query's words are
//! cut on the stack and the scores accumulate in a per-thread table reused
//! between queries. Counted by a global allocator that counts this
//! thread's allocations.

// A global allocator is an `unsafe` trait; this one only counts and hands
// every call to the system allocator unchanged.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use mcpgen_runtime::server::search::SearchIndex;
use serde_json::{json, Value};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocations_of(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn a_query_allocates_only_its_answer() {
    let tools: Vec<Value> = (0..1000)
        .map(|i| {
            json!({"name": format!("tool_{i}_get_weather_alerts"),
                   "description": format!("Reads record {i} of the weather archive; 创建仓库 {i}."),
                   "inputSchema": {"type": "object", "properties": {"region": {"type": "string"}}}})
        })
        .collect();
    let index = SearchIndex::build(&tools);
    let query = "Which weather alerts are active in my region? 创建一个仓库";
    // The first query on a thread sizes its score table.
    assert_eq!(index.search(query, 5, |_| true).len(), 5);
    let mut found = Vec::new();
    let counted = allocations_of(|| found = index.search(query, 5, |_| true));
    assert_eq!(found.len(), 5);
    assert_eq!(counted, 1, "one allocation: the answer");
    let counted = allocations_of(|| {
        assert!(index.search("zebra", 5, |_| true).is_empty());
    });
    assert!(counted <= 1, "{counted} allocations for an empty answer");
}
