"""Altered copies of the two course documents, as a table: each row changes ONE fact of the real
text (the original substring must occur exactly once) and names the line and clause where the
audit must report it. The copies are made at test time from ../shared/seeds (the documents are
not part of the repository). `CONTROLS` rewrite a fact in other words that keep it true: they
must add no finding.

Classes: "words" (numbers written in words), "subject" (a number bound to the wrong subject, or
a range of ids), "claim" (prose claims: distribution, tied, lookup as a matrix product, std vs
variance, 0/1-based), "formula" (formulas and units: parameters, bytes, MB/MiB).
"""

from __future__ import annotations

from typing import NamedTuple


class Alteration(NamedTuple):
    cls: str
    lang: str
    old: str
    new: str
    clause: str
    line: int
    what: str


ALTERATIONS: list[Alteration] = [
    # --- numbers in words --------------------------------------------------------------------
    Alteration("words", "nl", "(768 dimensies voor", "(zevenhonderdzesenzestig dimensies voor",
               "CFG-DMODEL-01", 3, "d_model 766 in words"),
    Alteration("words", "nl", "krijgt deze 768 floats", "krijgt deze zevenhonderdnegenenzestig floats",
               "CFG-DMODEL-01", 18, "floats per entry 769 in words"),
    Alteration("words", "nl", "beperkt T tot 1024.", "beperkt T tot tweeduizend achtenveertig.",
               "CFG-CONTEXT-01", 46, "T = 2048 in words"),
    Alteration("words", "nl", "Ruwe schatting: 6,5 miljoen", "Ruwe schatting: zeven miljoen",
               "PAR-TOKEN-01", 18, "token table 7 million in words"),
    Alteration("words", "nl", "(1024 stuks)", "(duizendtwintig stuks)",
               "CFG-CONTEXT-01", 70, "sequence of 1020 ids in words"),
    Alteration("words", "ko", "768차원)", "칠백육십육차원)",
               "CFG-DMODEL-01", 3, "d_model 766 in Sino-Korean"),
    Alteration("words", "ko", "대략 650만 개의", "대략 육백사십만 개의",
               "PAR-TOKEN-01", 18, "token table 640만 in words"),
    Alteration("words", "ko", "T를 1024로 제한", "T를 이천사십팔로 제한",
               "CFG-CONTEXT-01", 46, "T = 2048 in words"),
    Alteration("words", "ko", "약 1억 2천만", "약 일억 삼천만",
               "CFG-TOTAL-01", 65, "total 1억 3천만 in words"),
    Alteration("words", "ko", "각 슬롯은 768개의", "각 슬롯은 칠백칠십개의",
               "CFG-DMODEL-01", 18, "770 floats per slot in words"),
    # --- a number about the wrong subject; ranges of ids -------------------------------------
    Alteration("subject", "nl", "Een aparte embedding-tabel met vorm (T, d_model)",
               "Een aparte positietabel met 8.449 rijen", "CFG-CONTEXT-01", 41,
               "position table rows = V"),
    Alteration("subject", "nl", "krijgt deze 768 floats", "krijgt deze 1024 floats",
               "CFG-DMODEL-01", 18, "floats per entry = T"),
    Alteration("subject", "nl", "0.79M parameters voor positie", "0.79M parameters voor de tokentabel",
               "PAR-TOKEN-01", 53, "the position count given to the token table"),
    Alteration("subject", "nl", "Token-ID i selecteert rij i.",
               "Token-ID i (van 0 tot en met 8449) selecteert rij i.", "CFG-VOCAB-01", 9,
               "ids 0 through 8449"),
    Alteration("subject", "nl", "Een 768-dimensionale vector", "Een 8449-dimensionale vector",
               "CFG-DMODEL-01", 22, "vector width = V"),
    Alteration("subject", "ko", "위치에 대한 0.79M 파라미터", "토큰 테이블에 대한 0.79M 파라미터",
               "PAR-TOKEN-01", 53, "the position count given to the token table"),
    Alteration("subject", "ko", "각 슬롯은 768개의", "각 슬롯은 1024개의",
               "CFG-DMODEL-01", 18, "floats per slot = T"),
    Alteration("subject", "ko", "Learned. (T, d_model) 형태의 별도 임베딩 테이블로",
               "Learned. 8,449개의 행을 가진 별도 위치 테이블로", "CFG-CONTEXT-01", 41,
               "position table rows = V"),
    Alteration("subject", "ko", "토큰 ID i가 행 i를 선택합니다.",
               "토큰 ID i(1부터 8449까지)가 행 i를 선택합니다.", "CFG-VOCAB-01", 9,
               "ids 1 through 8449 (1-based)"),
    Alteration("subject", "ko", "구성된 (1024, 768) 행렬", "구성된 (8449, 768) 행렬",
               "CFG-CONTEXT-01", 70, "the forward pass result has V rows"),
    # --- claims in prose ---------------------------------------------------------------------
    Alteration("claim", "nl", "uit een normale verdeling", "uit een gelijkverdeling",
               "INIT-DIST-01", 11, "uniform init"),
    Alteration("claim", "nl", "ANDREA gebruikt ontkoppelde embeddings: de input-embedding en de "
               "output-projectie worden getraind als aparte matrices.",
               "ANDREA koppelt de input-embedding aan de output-projectie: beide gebruiken "
               "dezelfde matrix.", "PAR-UNTIED-01", 68, "tied embeddings"),
    Alteration("claim", "nl", "Directe array-toegang.",
               "Een vermenigvuldiging van een one-hot vector met de matrix.",
               "EMB-LOOKUP-01", 9, "lookup as a one-hot product"),
    Alteration("claim", "nl", "geschaald met 1/sqrt(d_model)", "met variantie 1/sqrt(d_model)",
               "INIT-DIST-01", 11, "the std given as the variance"),
    Alteration("claim", "nl", "Alleen een index.", "Alleen een index, die begint bij 1.",
               "CFG-VOCAB-01", 9, "1-based ids"),
    Alteration("claim", "ko", "정규 분포에서 추출", "균등 분포에서 추출",
               "INIT-DIST-01", 11, "uniform init"),
    Alteration("claim", "ko", "ANDREA는 untied embeddings를 사용합니다: 입력 임베딩과 출력 투영이 "
               "별도의 행렬로 학습됩니다.",
               "ANDREA는 tied embeddings를 사용합니다: 입력 임베딩과 출력 투영이 하나의 행렬을 "
               "공유합니다.", "PAR-UNTIED-01", 68, "tied embeddings"),
    Alteration("claim", "ko", "직접적인 배열 접근.", "원-핫 벡터와 테이블의 행렬 곱.",
               "EMB-LOOKUP-01", 9, "lookup as a one-hot product"),
    Alteration("claim", "ko", "d_model의 제곱근으로 스케일링된", "분산이 1/sqrt(d_model)인",
               "INIT-DIST-01", 11, "the std given as the variance"),
    Alteration("claim", "ko", "단지 인덱스일 뿐입니다.", "단지 1부터 시작하는 인덱스일 뿐입니다.",
               "CFG-VOCAB-01", 9, "1-based ids"),
    # --- formulas and units ------------------------------------------------------------------
    Alteration("formula", "nl", "bespaart V × d_model parameters", "bespaart T × d_model parameters",
               "PAR-UNTIED-01", 67, "savings T × d_model"),
    Alteration("formula", "nl", "dezelfde V × d_model-matrix", "dezelfde V × T-matrix",
               "PAR-TOKEN-01", 67, "the shared matrix V × T"),
    Alteration("formula", "nl", "Ongeveer 7,3M parameters.", "Ongeveer 7,3 MB.",
               "PAR-EMB-01", 65, "7.3 MB where float32 needs 29.1 MB"),
    Alteration("formula", "nl", "geschaald met 1/sqrt(d_model)", "geschaald met 1/sqrt(T)",
               "INIT-DIST-01", 11, "init std 1/sqrt(T)"),
    Alteration("formula", "ko", "V × d_model 파라미터를 절약", "T × d_model 파라미터를 절약",
               "PAR-UNTIED-01", 67, "savings T × d_model"),
    Alteration("formula", "ko", "동일한 V × d_model 행렬", "동일한 (V + T) × d_model 행렬",
               "PAR-TOKEN-01", 67, "the shared matrix (V + T) × d_model"),
    Alteration("formula", "ko", "대략 730만 개의 파라미터.", "대략 730만 바이트.",
               "PAR-EMB-01", 65, "730만 bytes where float32 needs 2,910만"),
    Alteration("formula", "ko", "d_model의 제곱근으로 스케일링된", "1/d_model로 스케일링된",
               "INIT-DIST-01", 11, "init std 1/d_model"),
]

# A second batch, written after the audit passed the first (kept apart to show what it had not
# seen): other sentences, other phrasings.
ALTERATIONS += [
    Alteration("words", "nl", "Twee 768-vectoren", "Twee vectoren van zevenhonderdzestig dimensies",
               "CFG-DMODEL-01", 56, "760 dimensions in words"),
    Alteration("words", "nl", "ongeveer 5,4 % van de totale", "ongeveer acht procent van de totale",
               "PAR-SHARE-01", 18, "share 8 percent in words"),
    Alteration("words", "nl", "parameteraantal: ~120M.", "parameteraantal: honderdvijftig miljoen.",
               "CFG-TOTAL-01", 65, "total 150 million in words"),
    Alteration("words", "ko", "768차원 벡터는", "칠백육십구차원 벡터는",
               "CFG-DMODEL-01", 22, "769 dimensions in Sino-Korean"),
    Alteration("words", "ko", "약 5.4%에 해당", "약 칠 퍼센트에 해당",
               "PAR-SHARE-01", 18, "share 7 percent in words"),
    Alteration("subject", "nl", "ANDREA beperkt T tot 1024.", "ANDREA beperkt de positietabel tot 768 rijen.",
               "CFG-CONTEXT-01", 46, "position rows = d_model"),
    Alteration("subject", "nl", "Elke ID zoekt een 768-vector op.", "Elke ID zoekt een 1024-vector op.",
               "CFG-DMODEL-01", 70, "vector of T floats"),
    Alteration("subject", "nl", "Ruwe schatting: 6,5 miljoen", "Ruwe schatting: 0,8 miljoen",
               "PAR-TOKEN-01", 18, "the position count given to the token table"),
    Alteration("subject", "ko", "각 ID는 768-벡터를", "각 ID는 8449-벡터를",
               "CFG-DMODEL-01", 70, "vector of V floats"),
    Alteration("subject", "ko", "토큰 임베딩 테이블에만 대략 650만", "위치 임베딩 테이블에만 대략 650만",
               "PAR-POS-01", 18, "the token count given to the position table"),
    Alteration("claim", "nl", "getrokken uit een normale verdeling", "getrokken uit een uniform verdeelde",
               "INIT-DIST-01", 11, "uniformly distributed"),
    Alteration("claim", "nl", "Token-ID i selecteert rij i.", "Token-ID i wordt met de tabel vermenigvuldigd.",
               "EMB-LOOKUP-01", 9, "the id multiplied with the table"),
    Alteration("claim", "nl", "ANDREA gebruikt ontkoppelde embeddings:", "ANDREA gebruikt gedeelde embeddings:",
               "PAR-UNTIED-01", 68, "shared embeddings"),
    Alteration("claim", "ko", "토큰 ID i가 행 i를 선택합니다.", "토큰 ID i에 one-hot 벡터를 곱합니다.",
               "EMB-LOOKUP-01", 9, "a one-hot product"),
    Alteration("formula", "nl", "bespaart V × d_model parameters", "bespaart V + d_model parameters",
               "PAR-UNTIED-01", 67, "savings V + d_model"),
    Alteration("formula", "nl", "Ongeveer 7,3M parameters.", "Ongeveer 29 miljoen parameters.",
               "PAR-EMB-01", 65, "the size in bytes given as parameters"),
    Alteration("formula", "ko", "동일한 V × d_model 행렬", "동일한 V × V 행렬",
               "PAR-TOKEN-01", 67, "the shared matrix V × V"),
    Alteration("formula", "ko", "대략 730만 개의 파라미터.", "대략 2,910만 개의 파라미터.",
               "PAR-EMB-01", 65, "the size in bytes given as parameters"),
]

# A third batch, also written before the audit had seen it: 12 of 14 were caught; "768 tokens"
# (a context length in tokens, nl and ko) was not, until the lexicon got a `tokens` unit; and
# "zes komma vier procent" was reported for the wrong reason (as "vier procent") until decimals
# in words were read.
ALTERATIONS += [
    Alteration("claim", "nl", "Een embedding-laag is een lookup-tabel, geen functie.",
               "Een embedding-laag is een matrixproduct, geen lookup-tabel.", "EMB-LOOKUP-01", 4,
               "the layer as a matrix product"),
    Alteration("words", "nl", "ongeveer 5,4 % van", "ongeveer zes komma vier procent van",
               "PAR-SHARE-01", 18, "6.4 percent in words"),
    Alteration("subject", "nl", "ANDREA beperkt T tot 1024.",
               "ANDREA beperkt de context tot 768 tokens.", "CFG-CONTEXT-01", 46,
               "context of 768 tokens"),
    Alteration("formula", "nl", "Deze koppeling bespaart V × d_model parameters",
               "Deze koppeling bespaart 2 × V × d_model parameters", "PAR-UNTIED-01", 67,
               "savings doubled"),
    Alteration("subject", "ko", "ANDREA는 T를 1024로 제한합니다.", "ANDREA는 컨텍스트를 768개의 토큰으로 제한합니다.",
               "CFG-CONTEXT-01", 46, "context of 768 tokens"),
    Alteration("claim", "ko", "임베딩 레이어는 룩업 테이블이지 함수가 아닙니다.", "임베딩 레이어는 행렬 곱셈이지 룩업 테이블이 아닙니다.",
               "EMB-LOOKUP-01", 4, "the layer as a matrix product"),
    Alteration("words", "ko", "약 1억 2천만", "약 일억 이천오백만", "CFG-TOTAL-01", 65,
               "125 million in words"),
    Alteration("subject", "ko", "각 위치도 768-벡터를", "각 위치도 1024-벡터를", "CFG-DMODEL-01", 70,
               "position vectors of T"),
    Alteration("formula", "ko", "동일한 V × d_model 행렬", "동일한 V × d_model × 2 행렬", "PAR-TOKEN-01", 67,
               "matrix doubled"),
    Alteration("subject", "ko", "토큰 ID i가 행 i를 선택합니다.", "토큰 ID i(0~8449)가 행 i를 선택합니다.",
               "CFG-VOCAB-01", 9, "ids 0~8449"),
    Alteration("words", "nl", "Elke ID zoekt een 768-vector op.",
               "Elke ID zoekt een vector van zeshonderd dimensies op.", "CFG-DMODEL-01", 70,
               "600 dims in words"),
    Alteration("claim", "nl", "Backpropagation werkt elke rij bij",
               "Backpropagation werkt elke rij bij; de tabel is gekoppeld aan de output-projectie van ANDREA",
               "PAR-UNTIED-01", 11, "tied said in another section"),
    Alteration("formula", "nl", "Een learned table werkt prima",
               "Een learned table van T × T parameters werkt prima", "PAR-POS-01", 46,
               "position table T × T"),
    Alteration("claim", "ko", "정규 분포에서 추출", "균등 분포(uniform)에서 추출", "INIT-DIST-01", 11, "uniform"),
]

# The position encoding, a claim added with its lexicon entry (learned, not sinusoidal or RoPE).
ALTERATIONS += [
    Alteration("claim", "nl", "ANDREA erft een learned-position-aanpak van microGPT",
               "ANDREA erft een sinusoïdale positie-aanpak van microGPT", "EMB-PERM-02", 43,
               "sinusoidal positions"),
    Alteration("claim", "ko", "ANDREA는 microGPT에서 물려받은 learned-position 방식을",
               "ANDREA는 microGPT에서 물려받은 RoPE 방식을", "EMB-PERM-02", 43, "RoPE positions"),
]

#: The same facts in other words: no finding may be added.
CONTROLS: list[Alteration] = [
    Alteration("words", "nl", "(768 dimensies voor", "(zevenhonderdachtenzestig dimensies voor",
               "", 3, "d_model in words"),
    Alteration("words", "nl", "beperkt T tot 1024.", "beperkt T tot duizendvierentwintig.",
               "", 46, "T in words"),
    Alteration("words", "ko", "768차원)", "칠백육십팔차원)", "", 3, "d_model in Sino-Korean"),
    Alteration("words", "ko", "약 1억 2천만", "약 일억 이천만", "", 65, "total in words"),
    Alteration("subject", "nl", "Token-ID i selecteert rij i.",
               "Token-ID i (van 0 tot en met 8448) selecteert rij i.", "", 9, "ids 0..8448"),
    Alteration("subject", "ko", "Learned. (T, d_model) 형태의 별도 임베딩 테이블로",
               "Learned. 1,024개의 행을 가진 별도 위치 테이블로", "", 41, "position rows = T"),
    Alteration("claim", "nl", "ANDREA gebruikt ontkoppelde embeddings",
               "ANDREA gebruikt geen gekoppelde embeddings", "", 68, "negated tied"),
    Alteration("claim", "ko", "정규 분포에서 추출", "가우스 분포에서 추출", "", 11, "Gaussian"),
    Alteration("claim", "nl", "geschaald met 1/sqrt(d_model)", "met variantie 1/d_model", "", 11,
               "the variance, as a variance"),
    Alteration("formula", "nl", "bespaart V × d_model parameters", "bespaart 8.449 × 768 parameters",
               "", 67, "savings in numbers"),
    Alteration("formula", "nl", "Ongeveer 7,3M parameters.", "Ongeveer 27,8 MiB.", "", 65,
               "the layer in MiB"),
    Alteration("formula", "ko", "대략 730만 개의 파라미터.", "대략 2,910만 바이트.", "", 65,
               "the layer in bytes"),
    Alteration("words", "nl", "ongeveer 5,4 % van de totale", "ongeveer vijf procent van de totale",
               "", 18, "5 percent, a whole percent"),
    Alteration("claim", "ko", "정규 분포에서 추출", "정규분포에서 추출", "", 11, "normal, one word"),
    Alteration("claim", "nl", "Directe array-toegang.",
               "Geen vermenigvuldiging met een one-hot vector: directe array-toegang.", "", 9,
               "the product negated"),
    Alteration("words", "ko", "대략 730만 개의", "대략 칠백삼십만 개의", "", 65, "730만 in words"),
]

CONTROLS += [
    Alteration("claim", "nl", "(meestal getrokken uit een normale verdeling",
               "(meestal getrokken uit een Gaussische verdeling", "", 11, "Gaussian"),
    Alteration("formula", "nl", "Ongeveer 7,3M parameters.",
               "Ongeveer 7,3M parameters, 29,1 MB in float32.", "", 65, "bytes too"),
    Alteration("formula", "ko", "대략 730만 개의 파라미터.", "대략 730만 개의 파라미터(약 29MB).", "", 65,
               "bytes too"),
    Alteration("subject", "nl", "ANDREA beperkt T tot 1024.",
               "ANDREA beperkt de context tot 1024 tokens.", "", 46, "context 1024 tokens"),
    Alteration("subject", "nl", "Elke vocabulaire-ingang krijgt deze 768 floats.",
               "Een vocabulaire van 8.449 tokens; elke ingang krijgt deze 768 floats.", "", 18,
               "vocab tokens"),
    Alteration("claim", "nl", "ANDREA erft een learned-position-aanpak van microGPT",
               "ANDREA erft geen sinusoïdale aanpak maar een learned-position-aanpak van microGPT",
               "", 43, "not sinusoidal but learned"),
]
