#pragma once
// A stable sort for the short lists the core orders (names close to a typo, a model's storage types, the GPU
// configurations of a ranking: hundreds at most). std::stable_sort adds its merge machinery, about 2.5 KB of wasm,
// for each element type; this is an insertion sort of indices, then one move of each element into its place.
#include <cstddef>  // std::size_t
#include <utility>  // std::move, std::swap
#include <vector>   // std::vector

namespace vramfit::detail {

// Orders `v` by `less` (a strict weak order); equal elements keep their order, as with std::stable_sort.
template <class T, class Less>
void small_stable_sort(std::vector<T>& v, Less less) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (std::size_t i = 1; i < order.size(); ++i)
    for (std::size_t k = i; k > 0 && less(v[order[k]], v[order[k - 1]]); --k) std::swap(order[k - 1], order[k]);
  std::vector<T> sorted;
  sorted.reserve(v.size());
  for (const std::size_t i : order) sorted.push_back(std::move(v[i]));
  v = std::move(sorted);
}

}  // namespace vramfit::detail
