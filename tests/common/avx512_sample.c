/*
 * AVX-512 code for the oracle test, built with -O2 -mavx512f so that EVEX
 * encodings (masks, broadcasts, embedded rounding, compressed disp8*N,
 * gathers, scatters, imm8 forms) reach the classifier. Never run.
 */
#include <immintrin.h>
#include <stddef.h>

float avx512_dot(const float *a, const float *b, size_t n);
void avx512_saxpy(float *y, const float *x, float k, size_t n);
void avx512_gather(int *out, const int *base, const int *idx, size_t n);
void avx512_clamp(double *v, size_t n, double lo, double hi);
__m512i avx512_mix(__m512i a, __m512i b, __m512i c, __mmask16 m);
size_t avx512_compress(int *out, const int *in, size_t n, int threshold);
void avx512_auto(double *restrict y, const double *restrict x, size_t n);

float avx512_dot(const float *a, const float *b, size_t n)
{
	__m512 acc = _mm512_setzero_ps();
	size_t i = 0;

	for (; i + 16 <= n; i += 16)
		acc = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc);
	if (i < n) {
		__mmask16 m = (__mmask16)((1u << (n - i)) - 1);
		acc = _mm512_mask3_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i),
					    _mm512_maskz_loadu_ps(m, b + i), acc, m);
	}
	return _mm512_reduce_add_ps(acc);
}

void avx512_saxpy(float *y, const float *x, float k, size_t n)
{
	__m512 vk = _mm512_set1_ps(k);

	for (size_t i = 0; i + 16 <= n; i += 16) {
		__m512 r = _mm512_fmadd_round_ps(vk, _mm512_loadu_ps(x + i),
						 _mm512_loadu_ps(y + i),
						 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
		_mm512_storeu_ps(y + i + 64, r);
	}
}

void avx512_gather(int *out, const int *base, const int *idx, size_t n)
{
	for (size_t i = 0; i + 16 <= n; i += 16) {
		__m512i vi = _mm512_loadu_si512(idx + i);
		__m512i g = _mm512_i32gather_epi32(vi, base, 4);
		_mm512_i32scatter_epi32(out, vi, g, 4);
	}
}

void avx512_clamp(double *v, size_t n, double lo, double hi)
{
	__m512d vlo = _mm512_set1_pd(lo), vhi = _mm512_set1_pd(hi);

	for (size_t i = 0; i + 8 <= n; i += 8) {
		__m512d x = _mm512_loadu_pd(v + i);
		__mmask8 m = _mm512_cmp_pd_mask(x, vlo, _CMP_LT_OQ);
		x = _mm512_mask_blend_pd(m, x, vlo);
		x = _mm512_min_pd(x, vhi);
		x = _mm512_roundscale_pd(x, 0x3);
		_mm512_storeu_pd(v + i, x);
	}
}

__m512i avx512_mix(__m512i a, __m512i b, __m512i c, __mmask16 m)
{
	__m512i r = _mm512_ternarylogic_epi32(a, b, c, 0x96);

	r = _mm512_mask_permutex2var_epi32(r, m, b, c);
	r = _mm512_shuffle_epi32(r, _MM_PERM_BADC);
	r = _mm512_srli_epi64(r, 7);
	r = _mm512_add_epi32(r, _mm512_set1_epi32(0x01020304));
	return _mm512_inserti64x4(r, _mm512_extracti64x4_epi64(a, 1), 0);
}

size_t avx512_compress(int *out, const int *in, size_t n, int threshold)
{
	__m512i t = _mm512_set1_epi32(threshold);
	size_t o = 0;

	for (size_t i = 0; i + 16 <= n; i += 16) {
		__m512i x = _mm512_loadu_si512(in + i);
		__mmask16 m = _mm512_cmpgt_epi32_mask(x, t);
		_mm512_mask_compressstoreu_epi32(out + o, m, x);
		o += (size_t)__builtin_popcount(m);
	}
	return o;
}

/* Left to the vectoriser. */
void avx512_auto(double *restrict y, const double *restrict x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = y[i] * 0.5 + (x[i] > 0 ? x[i] : -x[i]);
}
