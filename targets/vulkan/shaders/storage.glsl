// The element type of float tensors in the arena. Each shader is compiled
// twice: float32 storage, and float16 storage with -DETCH_F16 (the blob's
// float_storage, et-compile --vulkan-storage=fp16). Arithmetic is float32
// either way: reads widen with float(), writes narrow with ELEMENT().
#ifdef ETCH_F16
#extension GL_EXT_shader_16bit_storage : require
#define ELEMENT float16_t
#else
#define ELEMENT float
#endif
