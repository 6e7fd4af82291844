// The Activation enum of schema/vulkan_blob.fbs, value for value.
const float kSqrtHalf = 0.70710678118654752;
const float kSqrtTwoOverPi = 0.79788456080286536;

// Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7): GLSL has no erf.
float erf_(float x) {
  float t = 1.0 / (1.0 + 0.3275911 * abs(x));
  float poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 +
               t * (-1.453152027 + t * 1.061405429))));
  float y = 1.0 - poly * exp(-x * x);
  return x < 0.0 ? -y : y;
}

float sigmoid_(float x) { return 1.0 / (1.0 + exp(-x)); }

// tanh's exp overflows for large |x| on some drivers; it is +-1 there.
float tanh_(float x) { return tanh(clamp(x, -15.0, 15.0)); }

float activate(float x, uint op, float alpha, float beta) {
  switch (op) {
  case 0u: return x;
  case 1u: return max(x, 0.0);
  case 2u: return min(max(x, alpha), beta);
  case 3u: return x * clamp(x + 3.0, 0.0, 6.0) / 6.0;
  case 4u: return clamp(x + 3.0, 0.0, 6.0) / 6.0;
  case 5u: return sigmoid_(x);
  case 6u: return tanh_(x);
  case 7u: return 0.5 * x * (1.0 + erf_(x * kSqrtHalf));
  case 8u: return 0.5 * x * (1.0 + tanh_(kSqrtTwoOverPi * (x + 0.044715 * x * x * x)));
  case 9u: return x * sigmoid_(x);
  case 10u: return x > 0.0 ? x : alpha * (exp(x) - 1.0);
  case 11u: return x > 0.0 ? x : alpha * x;
  case 12u: return abs(x);
  case 13u: return sqrt(x);
  case 14u: return inversesqrt(x);
  case 15u: return exp(x);
  case 16u: return log(x);
  case 17u: return -x;
  case 18u: return erf_(x);
  case 19u: return 1.0 / x;
  case 20u: return floor(x);
  case 21u: return ceil(x);
  case 22u: return roundEven(x);
  case 23u: return sin(x);
  case 24u: return cos(x);
  case 25u: return trunc(x);
  case 26u: return sign(x);
  // exp(x) - 1 and log(1 + x) lose digits near 0: use the series there.
  case 27u: return abs(x) < 1e-4 ? x + 0.5 * x * x : exp(x) - 1.0;
  case 28u: return abs(x) < 1e-4 ? x - 0.5 * x * x : log(1.0 + x);
  }
  return x;
}
