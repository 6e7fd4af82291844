// RUN: et-opt %s -split-input-file -etch-memory-plan -verify-diagnostics | FileCheck %s

// A chain: each intermediate dies when the next is made, so two slots are
// reused alternately; the input stays alive for the whole method.
// CHECK-LABEL: func @chain
// CHECK-SAME: etch.arena_offset = 0 : i64
// CHECK-SAME: etch.arena_lower_bound = 192 : i64, etch.arena_size = 192 : i64
// CHECK: edge.relu %arg0 {etch.arena_offsets = array<i64: 64>}
// CHECK: edge.sigmoid %{{.*}} {etch.arena_offsets = array<i64: 128>}
// CHECK: edge.tanh %{{.*}} {etch.arena_offsets = array<i64: 64>}
func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = edge.relu %x : (tensor<16xf32>) -> tensor<16xf32>
  %1 = edge.sigmoid %0 : (tensor<16xf32>) -> tensor<16xf32>
  %2 = edge.tanh %1 : (tensor<16xf32>) -> tensor<16xf32>
  return %2 : tensor<16xf32>
}

// -----

// Values alive at the same time never overlap; constants are not planned;
// a value used by the return lives to the end.
// CHECK-LABEL: func @diamond
// CHECK-SAME: etch.arena_lower_bound = 512 : i64, etch.arena_size = 512 : i64
// CHECK: edge.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NOT: etch.arena_offsets
// CHECK: %[[A:.*]] = edge.relu %arg0 {etch.arena_offsets = array<i64: [[OA:[0-9]+]]>}
// CHECK: %[[B:.*]] = edge.sigmoid %arg0 {etch.arena_offsets = array<i64: [[OB:[0-9]+]]>}
// CHECK: edge.add %[[A]], %[[B]] {etch.arena_offsets = array<i64: [[OC:[0-9]+]]>}
func.func @diamond(%x: tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %c = edge.constant dense<1.0> : tensor<4xf32>
  %a = edge.relu %x : (tensor<32xf32>) -> tensor<32xf32>
  %b = edge.sigmoid %x : (tensor<32xf32>) -> tensor<32xf32>
  %s = edge.add %a, %b : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
  return %s, %a : tensor<32xf32>, tensor<32xf32>
}

// -----

// A dynamic input without bounds cannot be planned.
// expected-error @+1 {{input #0 has the dynamic type 'tensor<?xf32>' but no bounds (etch.max_sizes)}}
func.func @unbounded(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = edge.relu %x : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Bounded dynamic shapes are planned at their upper bounds: every value's
// bound follows from the input's largest shape, run-time sizes included
// (the view's rows are sym_size * 2), and is recorded for the program.
// CHECK-LABEL: func @bounded
// CHECK-SAME: etch.arena_offset = 0 : i64, etch.max_sizes = array<i64: 8, 4>, etch.min_sizes = array<i64: 1, 4>, etch.planned_type = tensor<8x4xf32>
// CHECK-SAME: etch.arena_size = 328 : i64
// CHECK: edge.relu {{.*}} {etch.arena_offsets = array<i64: 128>, etch.planned_types = [tensor<8x4xf32>]}
// CHECK: edge.view {{.*}} {etch.arena_offsets = array<i64: 128>, etch.planned_types = [tensor<16x2xf32>]
func.func @bounded(%x: tensor<?x4xf32> {etch.min_sizes = array<i64: 1, 4>, etch.max_sizes = array<i64: 8, 4>}) -> tensor<?x2xf32> {
  %0 = edge.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = edge.sym_size %x {dim = 0 : i64} : (tensor<?x4xf32>) -> tensor<i64>
  %two = edge.constant dense<2> : tensor<i64>
  %rows = edge.mul %s, %two : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %1 = edge.view %0, %rows {size = array<i64: -9223372036854775808, 2>} : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x2xf32>
  return %1 : tensor<?x2xf32>
}

// -----

// A mutable buffer keeps its bytes for the whole method and between runs;
// an index_put over it that nothing reads afterwards writes in place (a
// KV-cache update: the buffer's new contents need no copy).
// CHECK-LABEL: func @state_in_place
// CHECK: edge.buffer "cache" = dense<0.000000e+00> : tensor<8x4xf32> {etch.arena_offsets = array<i64: [[C:[0-9]+]]>}
// CHECK: edge.index_put {{.*}} {etch.arena_offsets = array<i64: [[C]]>, indexed_dims = array<i64: 0>}
func.func @state_in_place(%v: tensor<1x4xf32>, %i: tensor<1xi64>) -> (tensor<2x4xf32>, tensor<8x4xf32>) attributes {etch.buffer_mutations = ["cache"]} {
  %c = edge.buffer "cache" = dense<0.0> : tensor<8x4xf32>
  %u = edge.index_put %c, %v, %i {indexed_dims = array<i64: 0>} : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<1xi64>) -> tensor<8x4xf32>
  %s = edge.slice %u {dim = 0 : i64, start = 0 : i64, end = 2 : i64} : (tensor<8x4xf32>) -> tensor<2x4xf32>
  return %s, %u : tensor<2x4xf32>, tensor<8x4xf32>
}

// -----

// The old contents are read after the write: the update gets bytes of its
// own (the runtime copies it into the buffer after the method), and
// nothing else is placed in the buffer's bytes while the method runs.
// CHECK-LABEL: func @state_read_after_write
// CHECK: edge.buffer "cache" = {{.*}} {etch.arena_offsets = array<i64: 0>}
// CHECK: edge.index_put {{.*}} {etch.arena_offsets = array<i64: 128>
// CHECK: edge.add {{.*}} {etch.arena_offsets = array<i64: 256>}
func.func @state_read_after_write(%v: tensor<1x4xf32>, %i: tensor<1xi64>) -> (tensor<8x4xf32>, tensor<8x4xf32>) attributes {etch.buffer_mutations = ["cache"]} {
  %c = edge.buffer "cache" = dense<0.0> : tensor<8x4xf32>
  %u = edge.index_put %c, %v, %i {indexed_dims = array<i64: 0>} : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<1xi64>) -> tensor<8x4xf32>
  %a = edge.add %c, %c : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %a, %u : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A slice_scatter over a temporary it is the last reader of writes in
// place; over a function input (which stays intact) it does not.
// CHECK-LABEL: func @scatter_in_place
// CHECK: %[[T:.*]] = edge.relu %arg0 {etch.arena_offsets = array<i64: [[T0:[0-9]+]]>}
// CHECK: edge.slice_scatter %[[T]], %arg1 {end = 2 : i64, etch.arena_offsets = array<i64: [[T0]]>
// CHECK: edge.slice_scatter %arg0, %arg1 {end = 3 : i64, etch.arena_offsets = array<i64: 128>
func.func @scatter_in_place(%x: tensor<4x4xf32>, %y: tensor<1x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %t = edge.relu %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %a = edge.slice_scatter %t, %y {dim = 0 : i64, start = 1 : i64, end = 2 : i64} : (tensor<4x4xf32>, tensor<1x4xf32>) -> tensor<4x4xf32>
  %b = edge.slice_scatter %x, %y {dim = 0 : i64, start = 2 : i64, end = 3 : i64} : (tensor<4x4xf32>, tensor<1x4xf32>) -> tensor<4x4xf32>
  return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Zero-copy concatenation: the slices of a cat whose leading dims are 1 are
// contiguous, so each computed input is planned in its slice of the result
// (nested cats too) and its producer writes there; the method's input keeps
// its own bytes and is copied.
// CHECK-LABEL: func @cat_in_place
// CHECK: edge.relu %arg0 {etch.arena_offsets = array<i64: [[#CAT:]]>}
// CHECK: edge.sigmoid %arg0 {etch.arena_offsets = array<i64: [[#CAT+16]]>}
// CHECK: %[[AB:.*]] = edge.cat {{.*}} {dim = 1 : i64, etch.arena_offsets = array<i64: [[#CAT]]>}
// CHECK: edge.tanh %arg0 {etch.arena_offsets = array<i64: [[#CAT+32]]>}
// CHECK: edge.cat %[[AB]], {{.*}} {dim = 1 : i64, etch.arena_offsets = array<i64: [[#CAT]]>}
// CHECK: edge.neg %arg0 {etch.arena_offsets = array<i64: [[#NEG:]]>}
// CHECK: edge.cat %arg0, {{.*}} {dim = 1 : i64, etch.arena_offsets = array<i64: [[#NEG-16]]>}
func.func @cat_in_place(%x: tensor<1x4xf32>) -> (tensor<1x12xf32>, tensor<1x8xf32>) {
  %a = edge.relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %b = edge.sigmoid %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %ab = edge.cat %a, %b {dim = 1 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x8xf32>
  %c = edge.tanh %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %abc = edge.cat %ab, %c {dim = 1 : i64} : (tensor<1x8xf32>, tensor<1x4xf32>) -> tensor<1x12xf32>
  %d = edge.neg %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %xd = edge.cat %x, %d {dim = 1 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x8xf32>
  return %abc, %xd : tensor<1x12xf32>, tensor<1x8xf32>
}

// -----

// Slices that are not contiguous (a leading dim above 1) and an input
// already placed in another cat keep their own buffers.
// CHECK-LABEL: func @cat_copies
// CHECK: edge.relu %arg0 {etch.arena_offsets = array<i64: [[#RELU:]]>}
// CHECK-NOT: array<i64: [[#RELU]]>
// CHECK: edge.neg %arg1 {etch.arena_offsets = array<i64: [[#NEGATED:]]>}
// CHECK-NEXT: edge.cat {{.*}} {dim = 1 : i64, etch.arena_offsets = array<i64: [[#NEGATED]]>}
func.func @cat_copies(%x: tensor<2x4xf32>, %y: tensor<1x4xf32>) -> (tensor<2x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>) {
  %a = edge.relu %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = edge.sigmoid %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %ab = edge.cat %a, %b {dim = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  %n = edge.neg %y : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %nn = edge.cat %n, %n {dim = 1 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x8xf32>
  %ny = edge.cat %y, %n {dim = 1 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x8xf32>
  return %ab, %nn, %ny : tensor<2x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>
}

// -----

// view, squeeze and unsqueeze name their operand's bytes (the kernels find
// nothing to copy), an input's too; the bytes live as long as any name is
// read, so the sigmoid made while the view is alive gets bytes of its own.
// CHECK-LABEL: func @views_alias
// CHECK: edge.view %arg0 {etch.arena_offsets = array<i64: 0>
// CHECK: edge.relu %arg0 {etch.arena_offsets = array<i64: [[#R:]]>}
// CHECK: edge.unsqueeze {{.*}} {dim = 0 : i64, etch.arena_offsets = array<i64: [[#R]]>}
// CHECK: edge.squeeze {{.*}} {dim = array<i64: 0>, etch.arena_offsets = array<i64: [[#R]]>}
// CHECK: edge.sigmoid %arg0 {etch.arena_offsets = array<i64: [[#S:]]>}
// CHECK-NOT: array<i64: [[#R]]>
// CHECK: edge.add {{.*}} {etch.arena_offsets = array<i64:
func.func @views_alias(%x: tensor<2x8xf32>) -> (tensor<16xf32>, tensor<2x8xf32>) {
  %flat = edge.view %x {size = array<i64: 16>} : (tensor<2x8xf32>) -> tensor<16xf32>
  %0 = edge.relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = edge.unsqueeze %0 {dim = 0 : i64} : (tensor<2x8xf32>) -> tensor<1x2x8xf32>
  %2 = edge.squeeze %1 {dim = array<i64: 0>} : (tensor<1x2x8xf32>) -> tensor<2x8xf32>
  %3 = edge.sigmoid %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = edge.add %2, %3 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %flat, %4 : tensor<16xf32>, tensor<2x8xf32>
}

// -----

// A view of a mutable buffer is copied out: an update written in place
// would change it. An index_put over the buffer whose result is not the
// buffer's new contents gets bytes of its own (in place, it would become
// the state of the next run).
// CHECK-LABEL: func @state_views_and_other_updates
// CHECK: edge.buffer "cache" = {{.*}} {etch.arena_offsets = array<i64: 0>}
// CHECK: edge.view {{.*}} {etch.arena_offsets = array<i64: [[#V:]]>
// CHECK-NOT: array<i64: 0>
// CHECK: edge.index_put {{.*}} {etch.arena_offsets = array<i64: [[#U:]]>
// CHECK: return
func.func @state_views_and_other_updates(%v: tensor<1x4xf32>, %i: tensor<1xi64>) -> (tensor<32xf32>, tensor<8x4xf32>) {
  %c = edge.buffer "cache" = dense<0.0> : tensor<8x4xf32>
  %flat = edge.view %c {size = array<i64: 32>} : (tensor<8x4xf32>) -> tensor<32xf32>
  %u = edge.index_put %c, %v, %i {indexed_dims = array<i64: 0>} : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<1xi64>) -> tensor<8x4xf32>
  return %flat, %u : tensor<32xf32>, tensor<8x4xf32>
}

// -----

// A slice of step 1 whose dims before the sliced one are 1 is one run of
// its operand's bytes: it is planned there where the run starts on the
// alignment (64 bytes: an index of dim 1 here). Along a later dim, with
// another step, or at an unaligned start, it is copied.
// CHECK-LABEL: func @contiguous_slices_alias
// CHECK: edge.relu %arg0 {etch.arena_offsets = array<i64: [[#R:]]>}
// CHECK: edge.slice {{.*}} {dim = 1 : i64, end = 2 : i64, etch.arena_offsets = array<i64: [[#R]]>, start = 0 : i64}
// CHECK: edge.slice {{.*}} {dim = 1 : i64, etch.arena_offsets = array<i64: [[#R+128]]>, start = -2 : i64}
// CHECK: edge.view {{.*}} {etch.arena_offsets = array<i64: [[#R+128]]>
// CHECK: edge.slice {{.*}} {dim = 2 : i64, end = 8 : i64, etch.arena_offsets = array<i64: {{[0-9]+}}>, start = 0 : i64}
// CHECK-NOT: array<i64: [[#R+64]]>
// CHECK: edge.slice {{.*}} {dim = 1 : i64, end = 3 : i64, etch.arena_offsets = array<i64: {{[0-9]+}}>, start = 1 : i64, step = 2 : i64}
// CHECK: edge.relu %arg1 {etch.arena_offsets = array<i64: [[#U:]]>}
// CHECK-NOT: array<i64: [[#U+16]]>
// CHECK: return
func.func @contiguous_slices_alias(%x: tensor<1x4x16xf32>, %y: tensor<1x6x4xf32>) -> (tensor<1x2x16xf32>, tensor<32xf32>, tensor<1x4x8xf32>, tensor<1x1x16xf32>, tensor<1x2x4xf32>) {
  %0 = edge.relu %x : (tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %a = edge.slice %0 {dim = 1 : i64, start = 0 : i64, end = 2 : i64} : (tensor<1x4x16xf32>) -> tensor<1x2x16xf32>
  %b = edge.slice %0 {dim = 1 : i64, start = -2 : i64} : (tensor<1x4x16xf32>) -> tensor<1x2x16xf32>
  %flat = edge.view %b {size = array<i64: 32>} : (tensor<1x2x16xf32>) -> tensor<32xf32>
  %c = edge.slice %0 {dim = 2 : i64, start = 0 : i64, end = 8 : i64} : (tensor<1x4x16xf32>) -> tensor<1x4x8xf32>
  %d = edge.slice %0 {dim = 1 : i64, start = 1 : i64, end = 3 : i64, step = 2 : i64} : (tensor<1x4x16xf32>) -> tensor<1x1x16xf32>
  %1 = edge.relu %y : (tensor<1x6x4xf32>) -> tensor<1x6x4xf32>
  %e = edge.slice %1 {dim = 1 : i64, start = 1 : i64, end = 3 : i64} : (tensor<1x6x4xf32>) -> tensor<1x2x4xf32>
  return %a, %flat, %c, %d, %e : tensor<1x2x16xf32>, tensor<32xf32>, tensor<1x4x8xf32>, tensor<1x1x16xf32>, tensor<1x2x4xf32>
}

// -----

// An op without operands is planned as any other (the aliasing rules look
// at an operand only for the ops they name).
// CHECK-LABEL: func @no_operands
// CHECK: edge.full {dtype = f32, etch.arena_offsets = array<i64: 0>
func.func @no_operands() -> tensor<2xf32> {
  %0 = edge.full {dtype = f32, fill_value = 1.0 : f64, size = array<i64: 2>} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
