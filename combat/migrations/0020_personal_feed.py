"""The personal feed (combat.live.feed): what each seat's player dismissed of it."""

from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('combat', '0019_convert_and_claim'),
    ]

    operations = [
        migrations.AddField(
            model_name='seat',
            name='feed_seen',
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='seat',
            name='feed_turn_seen',
            field=models.CharField(blank=True, default='', max_length=24),
        ),
    ]
