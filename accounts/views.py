"""Sign-up, log-in (with a readable lockout), password change and profile pages."""

from __future__ import annotations

from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse_lazy
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language as django_set_language

from accounts.forms import SignUpForm
from accounts.models import Preferences, set_turn_emails
from accounts.models import set_language as set_language_preference
from common import ratelimit
from common.client_ip import client_key

#: Sign-ups allowed per client address per hour (override with settings.SIGNUP_RATE_LIMIT).
SIGNUP_RATE_LIMIT = 10
SIGNUP_RATE_WINDOW = 3600
#: The window of the password reset limit (settings.PASSWORD_RESET_RATE_LIMIT per window).
PASSWORD_RESET_RATE_WINDOW = 3600


def _cooloff_minutes(request: HttpRequest) -> int:
    cool_off = get_cool_off(request)
    return max(1, round(cool_off.total_seconds() / 60)) if cool_off else 15


def lockout(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """django-axes' lockout response (usable as ``AXES_LOCKOUT_CALLABLE``): the login page
    with a clear message, status 429."""
    from django.contrib.auth.forms import AuthenticationForm

    if request.path.startswith("/api/"):
        return JsonResponse(
            {
                "detail": _("Too many failed log-ins: try again in %(minutes)d minutes.")
                % {"minutes": _cooloff_minutes(request)},
                "code": "locked_out",
            },
            status=429,
        )
    return TemplateResponse(
        request,
        "accounts/login.html",
        {
            "form": AuthenticationForm(request),
            "locked_out": True,
            "cooloff_minutes": _cooloff_minutes(request),
        },
        status=429,
    ).render()


class LoginView(auth_views.LoginView):
    """Django's login view, but a locked-out pair (username, address) gets a readable page."""

    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def get_redirect_url(self) -> str:
        """Django's safe ``next``, but never the log-in page itself: for a signed-in visitor
        that is a redirect loop, which Django reports as a ValueError (a 500)."""
        url = super().get_redirect_url()
        return "" if url and url.split("?")[0] == self.request.path else url

    def form_valid(self, form):
        """Log in, then apply the person's remembered language (the switcher's cookie); a
        person without one keeps, and remembers, the language they are reading in."""
        response = super().form_valid(form)
        user = self.request.user
        remembered = Preferences.objects.filter(user=user).values_list(
            "language", flat=True).first()
        if remembered:
            set_language_cookie(response, remembered)
        elif self.request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME):
            set_language_preference(user=user, language=translation.get_language() or "")
        return response

    def form_invalid(self, form):
        if getattr(self.request, "axes_locked_out", False):
            response = lockout(self.request)
            # We answered the lockout ourselves: the axes middleware need not replace it.
            self.request.axes_locked_out = False
            return response
        return super().form_invalid(form)


def set_language_cookie(response: HttpResponse, language: str) -> None:
    """The cookie Django's ``set_language`` view sets (LocaleMiddleware reads it)."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME, language, max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH, domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE, httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """The header's language switcher: Django's ``set_language`` (a cookie and a redirect to
    ``next``), and for a signed-in person the choice is remembered for the next log-in and
    for the mails we send them."""
    response = django_set_language(request)
    code = request.POST.get("language", "")
    if request.user.is_authenticated and code in dict(settings.LANGUAGES):
        set_language_preference(user=request.user, language=code)
    return response


def signup_allowed(request: HttpRequest) -> bool:
    limit = getattr(settings, "SIGNUP_RATE_LIMIT", SIGNUP_RATE_LIMIT)
    address = client_key(request)
    return ratelimit.hit(f"signup:{address}", limit=limit, window=SIGNUP_RATE_WINDOW)


def _next_url(request: HttpRequest) -> str:
    """The safe ``next`` of a request (an invite link), or ""."""
    url = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return url if url and allowed else ""


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account and log in; limited per address and hour.

    A ``next`` URL (an invite link sends one) is where the new player lands afterwards.
    """
    next_url = _next_url(request)
    if request.user.is_authenticated:
        return redirect(next_url or "lobby")
    status = 200
    if request.method == "POST":
        form = SignUpForm(request.POST)
        if not signup_allowed(request):
            form = SignUpForm(request.POST)
            form.is_valid()
            form.add_error(None, _("Too many sign-ups from your address. Try again in an hour."))
            status = 429
        elif form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            set_language_preference(user=user, language=translation.get_language() or "")
            messages.success(request, _("Welcome, %(name)s!") % {"name": user.username})
            return redirect(next_url or "lobby")
        else:
            status = 400
    else:
        form = SignUpForm()
    return TemplateResponse(
        request, "accounts/signup.html", {"form": form, "next": next_url}, status=status
    )


def password_reset_allowed(request: HttpRequest, email: str) -> bool:
    """One more reset request from this address and for this e-mail address, if allowed.

    Both counted every time (known address or not), so the answer says nothing about
    which e-mail addresses have accounts; fails open when the cache is down.
    """
    limit = settings.PASSWORD_RESET_RATE_LIMIT
    by_address = ratelimit.hit(f"pwreset:ip:{client_key(request)}", limit=limit,
                               window=PASSWORD_RESET_RATE_WINDOW)
    by_email = ratelimit.hit(f"pwreset:email:{email.strip().lower()}", limit=limit,
                             window=PASSWORD_RESET_RATE_WINDOW)
    return by_address and by_email


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset request (a mail with a one-time link), limited per address and
    e-mail address and hour; the page never says whether an account has that address."""

    template_name = "accounts/password_reset_form.html"
    email_template_name = "accounts/password_reset_email.txt"
    subject_template_name = "accounts/password_reset_subject.txt"
    success_url = reverse_lazy("accounts:password_reset_done")

    def form_valid(self, form):
        if not password_reset_allowed(self.request, form.cleaned_data["email"]):
            form.add_error(None, _("Too many password reset requests. Try again in an hour."))
            response = self.form_invalid(form)
            response.status_code = 429
            return response
        return super().form_valid(form)


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_done.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The link of the mail: a new password, twice (Django's validators)."""

    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "accounts/password_reset_complete.html"


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:password_change_done")


class PasswordChangeDoneView(auth_views.PasswordChangeDoneView):
    template_name = "accounts/password_change_done.html"


@login_required
@require_http_methods(["GET", "POST"])
def notifications(request: HttpRequest) -> HttpResponse:
    """The person's notification settings (turn e-mails of correspondence games)."""
    if request.method == "POST":
        set_turn_emails(user=request.user, enabled=bool(request.POST.get("turn_emails")))
        messages.success(request, _("Your notification settings are saved."))
        return redirect("accounts:notifications")
    prefs = Preferences.objects.filter(user=request.user).first()
    context = {
        "turn_emails": prefs is None or prefs.turn_emails,
        "has_email": bool(request.user.email),
    }
    return TemplateResponse(request, "accounts/notifications.html", context)


