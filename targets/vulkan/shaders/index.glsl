// Row-major decomposition of a flat index over six dims (leading dims of
// lower ranks are 1) into an offset under other strides.
uint stridedOffset(uint index, uint dims[6], uint strides[6]) {
  uint offset = 0u;
  for (int d = 5; d >= 0; --d) {
    uint coordinate = index % dims[d];
    index /= dims[d];
    offset += coordinate * strides[d];
  }
  return offset;
}

uint elementCount(uint dims[6]) {
  return dims[0] * dims[1] * dims[2] * dims[3] * dims[4] * dims[5];
}
