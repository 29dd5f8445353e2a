//! The search tool surface of a generated server (`"toolSurface":
//! "search"` in the manifest's `x-mcpgen`): the BM25 index of the catalog,
//! computed here by the runtime's own indexer and written as static data,
//! the builder call that serves it with the pinned tools, and the
//! client's `search_tools`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::manifest::{Manifest, ToolSurface};
use mcpgen_runtime::server::search::SearchIndex;

/// The index item and the builder call; nothing for the `all` surface.
pub fn search(manifest: &Manifest) -> (TokenStream, TokenStream) {
    if manifest.settings.tool_surface != ToolSurface::Search {
        return (TokenStream::new(), TokenStream::new());
    }
    let index = SearchIndex::build(&manifest.served_tools());
    let terms = index.terms();
    let starts = index.starts().iter().map(|&s| Literal::u32_unsuffixed(s));
    let postings = index.postings().iter().map(|&[tool, weight]| {
        let (tool, weight) = (
            Literal::u32_unsuffixed(tool),
            Literal::u32_unsuffixed(weight),
        );
        quote!([#tool, #weight])
    });
    let lengths = index.lengths().iter().map(|&l| Literal::u32_unsuffixed(l));
    let pinned = &manifest.settings.pinned_tools;
    let item = quote! {
        /// The BM25 index `search_tools` ranks the catalog with, computed
        /// by mcpgen from [`TOOLS_JSON`]: the sorted terms, where each
        /// term's `[tool, weight]` postings start, the postings, and each
        /// tool's length.
        pub static TOOL_SEARCH_INDEX: SearchIndex = SearchIndex::from_static(
            &[#(#terms),*],
            &[#(#starts),*],
            &[#(#postings),*],
            &[#(#lengths),*],
        );
    };
    let pin = (!pinned.is_empty()).then(|| quote!(.pin([#(#pinned),*])));
    let call = quote! {
        .tool_search(ToolSearch::new()#pin.index(&TOOL_SEARCH_INDEX))
    };
    (item, call)
}

/// The client's `search_tools`; nothing for the `all` surface.
pub fn client_impl(manifest: &Manifest) -> TokenStream {
    if manifest.settings.tool_surface != ToolSurface::Search {
        return TokenStream::new();
    }
    quote! {
        impl Client {
            /// Finds the server's tools that fit `query` (words describing
            /// a task), best first, at most `limit` (1 to 50; 5 when
            /// `None`): their full definitions. Every tool keeps its typed
            /// method here.
            pub async fn search_tools(
                &self,
                query: &str,
                limit: Option<u32>,
            ) -> Result<Vec<Value>, ClientError> {
                self.inner.search_tools(query, limit).await
            }
        }
    }
}
